// The cluster port conformance suite: behaviour every backend must share with the Kubernetes API
// server. It runs unchanged against the embedded store and against a real kube-apiserver (with the
// browserfn.dev CRDs and a garbage collector), so it asserts only what a real server does:
// resourceVersions are compared as increasing numbers, never as exact values, and garbage
// collection is awaited (it is asynchronous in Kubernetes).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../src/cluster/objects.js';
import { ClusterError, isAlreadyExists, isConflict, isNotFound, type ClusterPort, type ResourceClient } from '../../src/cluster/port.js';
import type { BuildObject, FunctionObject } from '../../src/schemas/resources.js';
import { EventCollector, eventually } from './watch-collector.js';

export interface ConformanceTarget {
  cluster: ClusterPort;
  /** Simulates a process restart: closes `cluster` and opens the same state again. */
  reopen?: () => Promise<ClusterPort>;
  /** Closes whatever is open and removes what the target created. */
  cleanup(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const rv = (obj: KubeObject): bigint => BigInt(obj.metadata.resourceVersion ?? 'x');
const names = (items: KubeObject[]): string[] => items.map((o) => o.metadata.name).sort();

async function rejectsWith(promise: Promise<unknown>, check: (err: unknown) => boolean, what: string): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    assert.ok(check(err), `expected ${what}, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    return err as Error;
  }
  assert.fail(`expected ${what}, but the call succeeded`);
}

const isInvalid = (err: unknown): boolean => err instanceof ClusterError && err.code === 422;
/** A malformed request: the API server answers 400 for some (selectors) and 422 for others. */
const isRejectedRequest = (err: unknown): boolean => err instanceof ClusterError && (err.code === 400 || err.code === 422);

export function describeClusterConformance(name: string, open: () => Promise<ConformanceTarget>): void {
  describe(`cluster port conformance: ${name}`, function () {
    let target: ConformanceTarget;
    let cluster: ClusterPort;
    let ns: string;
    let functions: ResourceClient<FunctionObject>;
    let builds: ResourceClient<BuildObject>;
    let configMaps: ResourceClient;
    let secrets: ResourceClient;
    const stops: (() => Promise<void>)[] = [];

    const useCluster = (next: ClusterPort): void => {
      cluster = next;
      functions = cluster.resource<FunctionObject>(Kinds.Function);
      builds = cluster.resource<BuildObject>(Kinds.Build);
      configMaps = cluster.resource(Kinds.ConfigMap);
      secrets = cluster.resource(Kinds.Secret);
    };

    const fn = (fnName: string, labels?: Record<string, string>): FunctionObject =>
      newObject<FunctionObject>(Kinds.Function, { name: fnName, namespace: ns, labels }, { spec: { name: fnName } });
    const build = (buildName: string, owners: KubeObject[] = []): BuildObject =>
      newObject<BuildObject>(
        Kinds.Build,
        { name: buildName, namespace: ns, ownerReferences: owners.length ? owners.map((o, i) => ownerReferenceTo(o, i === 0)) : undefined },
        { spec: { entrypoint: 'index.ts', archiveConfigMap: `${buildName}-archive` } },
      );
    const configMap = (cmName: string, labels?: Record<string, string>, owners: KubeObject[] = []): KubeObject =>
      newObject(
        Kinds.ConfigMap,
        { name: cmName, namespace: ns, labels, ownerReferences: owners.length ? owners.map((o, i) => ownerReferenceTo(o, i === 0)) : undefined },
        { data: { key: cmName } },
      );

    async function watchWith(client: ResourceClient, options: { resourceVersion?: string; labelSelector?: string }): Promise<EventCollector> {
      const collector = new EventCollector();
      const watch = await client.watch(ns, options, collector.onEvent, collector.onError);
      stops.push(() => watch.stop());
      return collector;
    }

    const gone = (client: ResourceClient<KubeObject>, objName: string) => async () => (await client.get(ns, objName)) === undefined;

    beforeEach(async function () {
      target = await open();
      useCluster(target.cluster);
      ns = `conformance-${randomBytes(4).toString('hex')}`;
      await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: ns }, {}));
    });

    afterEach(async function () {
      for (const stop of stops.splice(0)) await stop();
      await target.cleanup();
    });

    describe('create and get', function () {
      it('fills uid, resourceVersion, generation and creationTimestamp, and get returns the stored object', async function () {
        const created = await functions.create(fn('alpha'));
        assert.match(created.metadata.uid ?? '', UUID);
        assert.match(created.metadata.resourceVersion ?? '', /^\d+$/);
        assert.equal(created.metadata.generation, 1);
        assert.match(created.metadata.creationTimestamp ?? '', RFC3339_SECONDS);
        assert.equal(created.apiVersion, 'browserfn.dev/v1alpha1');
        assert.equal(created.kind, 'Function');
        assert.deepEqual(created.spec, { name: 'alpha' });
        assert.deepEqual(await functions.get(ns, 'alpha'), created);
        assert.equal(await functions.get(ns, 'missing'), undefined);
      });

      it('refuses a taken name with AlreadyExistsError and a malformed name with InvalidError', async function () {
        await configMaps.create(configMap('taken'));
        await rejectsWith(configMaps.create(configMap('taken')), isAlreadyExists, 'AlreadyExistsError');
        await rejectsWith(configMaps.create(configMap('Not_A_Name')), isInvalid, 'InvalidError (422)');
      });

      it('ignores status on create for kinds with a status subresource', async function () {
        const created = await builds.create({ ...build('with-status'), status: { phase: 'COMPLETED' } });
        assert.equal(created.status?.phase, undefined);
        assert.equal((await builds.get(ns, 'with-status'))?.status?.phase, undefined);
      });

      it('hands out copies: changing a returned or passed object does not change the stored one', async function () {
        const input = configMap('copied');
        const created = await configMaps.create(input);
        (input.data as Record<string, string>).key = 'changed-input';
        (created.data as Record<string, string>).key = 'changed-output';
        const fetched = await configMaps.get(ns, 'copied');
        assert.deepEqual(fetched?.data, { key: 'copied' });
        (fetched?.data as Record<string, string>).key = 'changed-again';
        assert.deepEqual((await configMaps.get(ns, 'copied'))?.data, { key: 'copied' });
      });

      it('merges Secret stringData into data as base64', async function () {
        const created = await secrets.create(newObject(Kinds.Secret, { name: 'creds', namespace: ns }, { stringData: { token: 'hunter2' }, data: { other: 'b3RoZXI=' } }));
        assert.deepEqual(created.data, { token: Buffer.from('hunter2').toString('base64'), other: 'b3RoZXI=' });
        assert.equal(created.stringData, undefined);
        assert.deepEqual((await secrets.get(ns, 'creds'))?.data, created.data);
      });
    });

    describe('list', function () {
      it('filters by label selector with every operator, within a namespace and across namespaces', async function () {
        const run = randomBytes(4).toString('hex');
        await configMaps.create(configMap('a', { run, tier: 'web', env: 'prod' }));
        await configMaps.create(configMap('b', { run, tier: 'db', env: 'prod' }));
        await configMaps.create(configMap('c', { run, tier: 'web' }));
        await configMaps.create(configMap('d', { run }));
        const other = `${ns}-other`;
        await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: other }, {}));
        await configMaps.create(newObject(Kinds.ConfigMap, { name: 'e', namespace: other, labels: { run, tier: 'web' } }, { data: {} }));

        const cases: [string, string[]][] = [
          ['', ['a', 'b', 'c', 'd']],
          ['tier=web', ['a', 'c']],
          ['tier==web', ['a', 'c']],
          ['tier!=web', ['b', 'd']],
          ['tier in (web,db)', ['a', 'b', 'c']],
          ['tier notin (web)', ['b', 'd']],
          ['env', ['a', 'b']],
          ['!env', ['c', 'd']],
          ['tier=web, env=prod', ['a']],
          ['tier in (web), !env', ['c']],
          ['tier=none', []],
        ];
        for (const [selector, expected] of cases) {
          const listed = await configMaps.list(ns, selector ? { labelSelector: selector } : {});
          assert.deepEqual(names(listed.items), expected, `selector "${selector}"`);
          assert.match(listed.resourceVersion, /^\d+$/);
        }
        const everywhere = await configMaps.list(undefined, { labelSelector: `run=${run},tier=web` });
        assert.deepEqual(names(everywhere.items), ['a', 'c', 'e']);
        assert.deepEqual(everywhere.items.find((o) => o.metadata.name === 'e')?.metadata.namespace, other);
      });

      it('rejects a malformed label selector', async function () {
        for (const selector of ['tier in web', 'tier=web,', '=web', 'tier in (web']) {
          await rejectsWith(configMaps.list(ns, { labelSelector: selector }), isRejectedRequest, `a 400/422 error for selector "${selector}"`);
        }
      });
    });

    describe('update', function () {
      it('fails with ConflictError on a stale resourceVersion', async function () {
        const created = await configMaps.create(configMap('contended'));
        const updated = await configMaps.update({ ...created, data: { key: 'first' } });
        assert.ok(rv(updated) > rv(created));
        const err = await rejectsWith(configMaps.update({ ...created, data: { key: 'second' } }), isConflict, 'ConflictError');
        assert.match(err.message, /contended/);
        assert.deepEqual((await configMaps.get(ns, 'contended'))?.data, { key: 'first' });
        await rejectsWith(configMaps.update(configMap('never-created')), isNotFound, 'NotFoundError for a missing object');
      });

      it('an update that changes nothing keeps the resourceVersion and sends no event', async function () {
        const created = await configMaps.create(configMap('steady', { app: 'x' }));
        const events = await watchWith(configMaps, { resourceVersion: created.metadata.resourceVersion });
        const same = await configMaps.update({ ...created, metadata: { ...created.metadata, labels: { app: 'x' } } });
        assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
        await configMaps.create(configMap('barrier'));
        await events.untilSeen('ADDED', 'barrier');
        assert.deepEqual(events.summary, ['ADDED barrier']);
      });

      it('bumps generation when spec changes, not when metadata or status change', async function () {
        const created = await functions.create(fn('gen'));
        const relabeled = await functions.update({ ...created, metadata: { ...created.metadata, labels: { touched: 'yes' } } });
        assert.equal(relabeled.metadata.generation, 1);
        assert.ok(rv(relabeled) > rv(created));
        const withStatus = await functions.updateStatus({ ...relabeled, status: { observedGeneration: 1, currentVersion: 3 } });
        assert.equal(withStatus.metadata.generation, 1);
        const respecced = await functions.update({ ...withStatus, spec: { ...withStatus.spec, secrets: ['s1'] } });
        assert.equal(respecced.metadata.generation, 2);
        assert.equal(respecced.metadata.uid, created.metadata.uid);
        assert.equal(respecced.metadata.creationTimestamp, created.metadata.creationTimestamp);
      });

      it('updateStatus changes only status, and update keeps the stored status', async function () {
        const created = await builds.create(build('status'));
        const running = await builds.updateStatus({
          ...created,
          metadata: { ...created.metadata, labels: { ignored: 'yes' } },
          spec: { ...created.spec, entrypoint: 'ignored.ts' },
          status: { phase: 'RUNNING', observedGeneration: 1 },
        });
        assert.equal(running.status?.phase, 'RUNNING');
        assert.equal(running.spec.entrypoint, 'index.ts');
        assert.equal(running.metadata.labels?.ignored, undefined);

        const relabeled = await builds.update({ ...running, metadata: { ...running.metadata, labels: { kept: 'yes' } }, status: { phase: 'FAILED' } });
        assert.equal(relabeled.status?.phase, 'RUNNING');
        assert.equal(relabeled.metadata.labels?.kept, 'yes');
        assert.equal((await builds.get(ns, 'status'))?.status?.phase, 'RUNNING');
        await rejectsWith(builds.updateStatus({ ...running, status: { phase: 'COMPLETED' } }), isConflict, 'ConflictError for a stale status update');
      });

      it('refuses data changes to a ConfigMap marked immutable', async function () {
        const created = await configMaps.create({ ...configMap('frozen'), immutable: true });
        await rejectsWith(configMaps.update({ ...created, data: { key: 'thawed' } }), isInvalid, 'InvalidError (422)');
        const relabeled = await configMaps.update({ ...created, metadata: { ...created.metadata, labels: { metadata: 'may-change' } } });
        assert.deepEqual(relabeled.data, { key: 'frozen' });
      });
    });

    describe('delete', function () {
      it('removes the object; a missing object gives NotFoundError; uid and resourceVersion preconditions give ConflictError', async function () {
        const created = await configMaps.create(configMap('doomed'));
        await rejectsWith(configMaps.delete(ns, 'doomed', { uid: '00000000-0000-4000-8000-000000000000' }), isConflict, 'ConflictError for a uid precondition');
        await rejectsWith(configMaps.delete(ns, 'doomed', { resourceVersion: String(rv(created) + 1000n) }), isConflict, 'ConflictError for a resourceVersion precondition');
        assert.ok(await configMaps.get(ns, 'doomed'));
        await configMaps.delete(ns, 'doomed', { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion });
        assert.equal(await configMaps.get(ns, 'doomed'), undefined);
        await rejectsWith(configMaps.delete(ns, 'doomed'), isNotFound, 'NotFoundError');
      });

      it('with finalizers marks deletionTimestamp once, and removes the object when the finalizers are emptied', async function () {
        const created = await configMaps.create({ ...configMap('guarded'), metadata: { ...configMap('guarded').metadata, finalizers: ['browserfn.dev/cleanup'] } });
        const events = await watchWith(configMaps, { resourceVersion: created.metadata.resourceVersion });
        await configMaps.delete(ns, 'guarded');
        const marked = await configMaps.get(ns, 'guarded');
        assert.match(marked?.metadata.deletionTimestamp ?? '', RFC3339_SECONDS);
        await configMaps.delete(ns, 'guarded');
        const again = await configMaps.get(ns, 'guarded');
        assert.equal(again?.metadata.deletionTimestamp, marked?.metadata.deletionTimestamp);
        assert.equal(again?.metadata.resourceVersion, marked?.metadata.resourceVersion);

        await configMaps.update({ ...(again as KubeObject), metadata: { ...(again as KubeObject).metadata, finalizers: [] } });
        assert.equal(await configMaps.get(ns, 'guarded'), undefined);
        await events.untilSeen('DELETED', 'guarded');
        assert.deepEqual(events.summary, ['MODIFIED guarded', 'DELETED guarded']);
        assert.ok(events.events[0].object.metadata.deletionTimestamp);
      });

      it('cascades to owned objects across several levels', async function () {
        const owner = await functions.create(fn('root'));
        const child = await builds.create(build('child', [owner]));
        await configMaps.create(configMap('grandchild', undefined, [child]));
        await configMaps.create(configMap('direct-child', undefined, [owner]));
        await configMaps.create(configMap('unrelated'));
        await functions.delete(ns, 'root');
        assert.equal(await functions.get(ns, 'root'), undefined);
        await eventually(gone(builds as ResourceClient, 'child'), 'the Build owned by the deleted Function is gone');
        await eventually(gone(configMaps, 'grandchild'), 'the ConfigMap owned by the deleted Build is gone');
        await eventually(gone(configMaps, 'direct-child'), 'the ConfigMap owned by the deleted Function is gone');
        assert.ok(await configMaps.get(ns, 'unrelated'));
      });

      it('keeps an object with two owners when one is deleted, drops the dangling reference, and deletes it with the last owner', async function () {
        const first = await functions.create(fn('first'));
        const second = await functions.create(fn('second'));
        await configMaps.create(configMap('only-first', undefined, [first]));
        await configMaps.create(configMap('shared', undefined, [first, second]));
        await functions.delete(ns, 'first');
        await eventually(gone(configMaps, 'only-first'), 'the ConfigMap owned only by the deleted Function is gone');
        await eventually(
          async () => (await configMaps.get(ns, 'shared'))?.metadata.ownerReferences?.every((ref) => ref.uid !== first.metadata.uid) ?? false,
          'the shared ConfigMap no longer refers to the deleted owner',
        );
        const shared = await configMaps.get(ns, 'shared');
        assert.deepEqual(shared?.metadata.ownerReferences?.map((ref) => ref.uid), [second.metadata.uid]);
        await functions.delete(ns, 'second');
        await eventually(gone(configMaps, 'shared'), 'the shared ConfigMap is gone with its last owner');
      });

      it('collects an object whose owner does not exist', async function () {
        const ghost = { ...(await functions.create(fn('ghost'))) };
        await functions.delete(ns, 'ghost');
        await configMaps.create(configMap('orphan', undefined, [ghost]));
        await eventually(gone(configMaps, 'orphan'), 'the ConfigMap owned by a deleted Function is collected');
      });
    });

    describe('watch', function () {
      it('from a resourceVersion delivers every later event in order, the DELETED one with the last state, then live events', async function () {
        const start = (await builds.list(ns)).resourceVersion;
        const a = await builds.create(build('a'));
        const b = await builds.create(build('b'));
        const a2 = await builds.update({ ...a, spec: { ...a.spec, entrypoint: 'main.ts' } });
        await builds.delete(ns, 'b');
        const a3 = await builds.updateStatus({ ...a2, status: { phase: 'RUNNING' } });
        const a4 = await builds.update({ ...a3, metadata: { ...a3.metadata, labels: { last: 'state' } } });
        await builds.delete(ns, 'a');

        const events = await watchWith(builds as ResourceClient, { resourceVersion: start });
        const expected = ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b', 'MODIFIED a', 'MODIFIED a', 'DELETED a'];
        await events.untilCount(expected.length);
        await builds.create(build('c'));
        await events.untilSeen('ADDED', 'c');
        assert.deepEqual(events.summary, [...expected, 'ADDED c']);

        const versions = events.events.map((e) => rv(e.object));
        for (let i = 1; i < versions.length; i++) assert.ok(versions[i] > versions[i - 1], `resourceVersions increase: ${versions.join(', ')}`);
        assert.equal(versions[0], rv(a));
        assert.equal(versions[1], rv(b));
        const deletedA = events.events[6].object as BuildObject;
        assert.equal(deletedA.metadata.labels?.last, 'state');
        assert.equal(deletedA.spec.entrypoint, 'main.ts');
        assert.equal(deletedA.status?.phase, 'RUNNING');
        assert.ok(rv(deletedA) > rv(a4));

        const later = await watchWith(builds as ResourceClient, { resourceVersion: b.metadata.resourceVersion });
        await later.untilSeen('ADDED', 'c');
        assert.deepEqual(later.summary, ['MODIFIED a', 'DELETED b', 'MODIFIED a', 'MODIFIED a', 'DELETED a', 'ADDED c']);
      });

      it('with a label selector: objects entering the selection arrive as ADDED, leaving it as DELETED', async function () {
        const start = (await configMaps.list(ns)).resourceVersion;
        const events = await watchWith(configMaps, { resourceVersion: start, labelSelector: 'watched=yes' });
        const one = await configMaps.create(configMap('one', { watched: 'yes' }));
        const two = await configMaps.create(configMap('two', { watched: 'no' }));
        await configMaps.update({ ...two, metadata: { ...two.metadata, labels: { watched: 'yes' } } });
        const one2 = await configMaps.update({ ...one, data: { key: 'changed' } });
        await configMaps.update({ ...one2, metadata: { ...one2.metadata, labels: { watched: 'no' } } });
        await configMaps.create(configMap('three'));
        await configMaps.delete(ns, 'two');
        await configMaps.create(configMap('barrier', { watched: 'yes' }));
        await events.untilSeen('ADDED', 'barrier');
        assert.deepEqual(events.summary, ['ADDED one', 'ADDED two', 'MODIFIED one', 'DELETED one', 'DELETED two', 'ADDED barrier']);
        const leftSelection = events.events[3].object;
        assert.equal(leftSelection.metadata.labels?.watched, 'yes', 'an object leaving the selection is delivered with its last matching state');
      });

      it('without a resourceVersion delivers only events from now on', async function () {
        await configMaps.create(configMap('before'));
        const events = await watchWith(configMaps, {});
        await configMaps.create(configMap('after'));
        await events.untilSeen('ADDED', 'after');
        assert.deepEqual(events.summary, ['ADDED after']);
      });

      it('from resourceVersion "0" starts with the current objects as ADDED', async function () {
        await configMaps.create(configMap('existing-1'));
        await configMaps.create(configMap('existing-2'));
        const events = await watchWith(configMaps, { resourceVersion: '0' });
        await configMaps.create(configMap('new'));
        await events.untilSeen('ADDED', 'new');
        assert.deepEqual(events.summary.slice(0, 2).sort(), ['ADDED existing-1', 'ADDED existing-2']);
        assert.deepEqual(events.summary.slice(2), ['ADDED new']);
      });

      it('stop() ends delivery and resolves done', async function () {
        const stopped = new EventCollector();
        const watch = await configMaps.watch(ns, {}, stopped.onEvent, stopped.onError);
        const witness = await watchWith(configMaps, {});
        await watch.stop();
        await watch.done;
        await configMaps.create(configMap('unseen'));
        await witness.untilSeen('ADDED', 'unseen');
        assert.deepEqual(stopped.events, []);
        assert.deepEqual(stopped.errors, []);
      });

      it('is scoped to its namespace', async function () {
        const other = `${ns}-elsewhere`;
        await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: other }, {}));
        const events = await watchWith(configMaps, {});
        await configMaps.create(newObject(Kinds.ConfigMap, { name: 'elsewhere', namespace: other }, { data: {} }));
        await configMaps.create(configMap('here'));
        await events.untilSeen('ADDED', 'here');
        assert.deepEqual(events.summary, ['ADDED here']);
      });
    });

    describe('restart', function () {
      it('keeps objects, versions and the event history across a restart', async function () {
        if (!target.reopen) this.skip();
        const kept = await functions.create(fn('kept', { app: 'x' }));
        const changed = await functions.update({ ...kept, spec: { ...kept.spec, secrets: ['a'] } });
        const start = (await configMaps.list(ns)).resourceVersion;
        await configMaps.create(configMap('short-lived'));
        await configMaps.delete(ns, 'short-lived');

        useCluster(await target.reopen());
        assert.deepEqual(await functions.get(ns, 'kept'), changed);
        assert.deepEqual(names((await functions.list(ns, { labelSelector: 'app=x' })).items), ['kept']);
        const events = await watchWith(configMaps, { resourceVersion: start });
        const next = await configMaps.create(configMap('after-restart'));
        assert.ok(rv(next) > rv(changed));
        await events.untilSeen('ADDED', 'after-restart');
        assert.deepEqual(events.summary, ['ADDED short-lived', 'DELETED short-lived', 'ADDED after-restart']);
      });
    });
  });
}
