// The kube backend against a real kube-apiserver built from its Go modules (scripts/controlplane):
// the backend-agnostic conformance suite, unchanged, plus what only a real API server shows — CRD
// validation and presentation, watch resumption across server timeouts, informer restarts after
// network failures, and no socket or file-descriptor leak across any of it.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { openKubeCluster } from '../../src/cluster/kube/index.js';
import { Kinds, newObject, type KubeObject, type ResourceType } from '../../src/cluster/objects.js';
import { ClusterError, GoneError, InvalidError, NotFoundError, type ClusterPort, type ResourceClient } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import { CRD_CATEGORY, CRD_KINDS, customResourceDefinition } from '../../src/schemas/crds.js';
import { resourceProblems, type ResourceKindName } from '../../src/schemas/resource-schemas.js';
import type { BuildObject, FunctionObject, InvocationObject, InvocationSpec } from '../../src/schemas/resources.js';
import { controlPlaneUnavailable, ensureControlPlane, kubectl } from '../support/controlplane.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { describeClusterConformance } from './conformance.js';
import { EventCollector, eventually } from './watch-collector.js';

const CRD_TYPE: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  hasStatusSubresource: true,
};

interface CrdObject extends KubeObject {
  spec: { names: { shortNames?: string[]; categories?: string[] }; versions: { additionalPrinterColumns?: { name: string }[]; subresources?: { status?: object } }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

const openFds = (): number => readdirSync('/proc/self/fd').length;

/** Namespaces the tests made: deleted without waiting (the namespace controller empties them). */
async function deleteNamespaces(cluster: ClusterPort, prefix: string): Promise<void> {
  const namespaces = cluster.resource(Kinds.Namespace);
  for (const ns of (await namespaces.list(undefined)).items) {
    if (!ns.metadata.name.startsWith(prefix) || ns.metadata.deletionTimestamp) continue;
    await namespaces.delete(undefined, ns.metadata.name).catch((err: unknown) => {
      if (!(err instanceof ClusterError && (err.code === 404 || err.code === 409))) throw err;
    });
  }
}

/** Completed WATCH requests on namespaced ConfigMaps, from the API server's own metrics. */
async function completedConfigMapWatches(): Promise<number> {
  const { code, stdout, stderr } = await kubectl(['get', '--raw', '/metrics']);
  assert.equal(code, 0, stderr);
  let total = 0;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    if (line.includes('verb="WATCH"') && line.includes('resource="configmaps"') && line.includes('scope="namespace"')) total += Number(line.split(' ').pop());
  }
  return total;
}

const unavailable = controlPlaneUnavailable();

if (unavailable) {
  const banner = '!'.repeat(100);
  console.warn(`\n${banner}\n!! SKIPPING the kube backend tests: the real control plane could not be built.\n!! ${unavailable}.\n!! Install Go 1.26+ (https://go.dev/dl) and run \`make control-plane\`.\n${banner}\n`);
  describe.skip(`kube backend on a real API server — SKIPPED: ${unavailable}`, function () {
    it('runs the cluster port conformance suite and the kube-only tests');
  });
} else {
  let kubeconfigPath = '';

  describe('kube backend on a real API server', function () {
    this.timeout(120_000);

    before(async function () {
      // A cold build of the control plane takes minutes; a warm start about 15 s.
      this.timeout(60 * 60_000);
      const plane = await ensureControlPlane();
      if (plane.state !== 'ready') throw new Error(`the test control plane is not available: ${plane.reason}`);
      kubeconfigPath = plane.kubeconfigPath;
    });

    describeClusterConformance('kube (kube-apiserver, etcd, garbage collector)', async () => {
      let cluster = await openKubeCluster({ kubeconfigPath });
      return {
        cluster,
        // A restart of our process: the state lives in the API server, a new client finds it there.
        reopen: async () => {
          await cluster.close();
          cluster = await openKubeCluster({ kubeconfigPath });
          return cluster;
        },
        cleanup: async () => {
          await deleteNamespaces(cluster, 'conformance-');
          await cluster.close();
        },
      };
    });

    describe('kube only', function () {
      let cluster: ClusterPort;
      let ns: string;
      let configMaps: ResourceClient;

      const configMap = (name: string): KubeObject => newObject(Kinds.ConfigMap, { name, namespace: ns }, { data: { key: name } });
      const invocationSpec = (overrides: Partial<InvocationSpec> = {}): InvocationSpec => ({
        functionName: 'scrape title',
        functionUid: randomUUID(),
        versionId: randomUUID(),
        bundleConfigMap: 'scrape-v1-bundle',
        params: { url: 'https://example.com', nested: { list: [1, 'two', { three: 3 }] } },
        sessionConfig: { timeout: 120, browserSettings: { viewport: { width: 1280, height: 720 }, someFutureSetting: 'kept' } },
        timeoutSeconds: 120,
        sessionId: randomUUID(),
        ...overrides,
      });
      const invocation = (name: string, spec: InvocationSpec): InvocationObject => newObject<InvocationObject>(Kinds.Invocation, { name, namespace: ns }, { spec });
      const fn = (name: string, spec: FunctionObject['spec']): FunctionObject => newObject<FunctionObject>(Kinds.Function, { name, namespace: ns }, { spec });
      const build = (name: string, spec: Record<string, unknown>): BuildObject => newObject<KubeObject>(Kinds.Build, { name, namespace: ns }, { spec }) as BuildObject;

      before(async function () {
        cluster = await openKubeCluster({ kubeconfigPath });
        ns = `kube-only-${randomBytes(4).toString('hex')}`;
        await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: ns }, {}));
        configMaps = cluster.resource(Kinds.ConfigMap);
      });

      after(async function () {
        await deleteNamespaces(cluster, ns);
        await cluster.close();
      });

      it('serves the browserfn CRDs: Established, status subresource, short names, the browserfn category, printer columns and explanations', async function () {
        const crds = cluster.resource<CrdObject>(CRD_TYPE);
        for (const kind of CRD_KINDS) {
          const expected = customResourceDefinition(kind);
          const served = await crds.get(undefined, expected.metadata.name);
          assert.ok(served, `CRD ${expected.metadata.name} is installed`);
          const conditions = Object.fromEntries((served.status?.conditions ?? []).map((c) => [c.type, c.status]));
          assert.equal(conditions.Established, 'True', `${kind} CRD is Established`);
          assert.equal(conditions.NamesAccepted, 'True', `${kind} CRD names are accepted`);
          assert.deepEqual(served.spec.names.shortNames, expected.spec.names.shortNames);
          assert.deepEqual(served.spec.names.categories, [CRD_CATEGORY]);
          assert.deepEqual(served.spec.versions[0].subresources, { status: {} });
          assert.deepEqual(
            served.spec.versions[0].additionalPrinterColumns?.map((c) => c.name),
            expected.spec.versions[0].additionalPrinterColumns.map((c) => c.name),
          );
        }

        await cluster.resource<FunctionObject>(Kinds.Function).create(fn('scrape-title', { name: 'scrape title' }));
        const created = await cluster.resource<InvocationObject>(Kinds.Invocation).create(invocation('inv-shown', invocationSpec()));
        await cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...created, status: { phase: 'RUNNING', podName: 'inv-shown-pod' } });

        const byCategory = await kubectl(['get', CRD_CATEGORY, '-n', ns, '-o', 'name']);
        assert.equal(byCategory.code, 0, byCategory.stderr);
        assert.deepEqual(byCategory.stdout.trim().split('\n').sort(), ['function.browserfn.dev/scrape-title', 'invocation.browserfn.dev/inv-shown']);

        const table = await kubectl(['get', 'bfninv', '-n', ns, '-o', 'wide']);
        assert.equal(table.code, 0, table.stderr);
        const [header, row] = table.stdout.trim().split('\n');
        assert.deepEqual(header.split(/\s+/), ['NAME', 'PHASE', 'FUNCTION', 'CAUSE', 'SESSION', 'POD', 'AGE']);
        // The empty Cause column shows as blanks.
        assert.match(row, new RegExp(`^inv-shown\\s+RUNNING\\s+scrape title\\s+${created.spec.sessionId}\\s+inv-shown-pod\\s+\\d+s$`));

        const explained = await kubectl(['explain', 'function.spec']);
        assert.equal(explained.code, 0, explained.stderr);
        for (const text of ['The name given to defineFn', 'name\t<string> -required-', 'version\t<Object>', 'secrets\t<[]string>']) {
          assert.ok(explained.stdout.includes(text), `kubectl explain function.spec mentions ${JSON.stringify(text)}:\n${explained.stdout}`);
        }
        const timeout = await kubectl(['explain', 'invocation.spec.timeoutSeconds']);
        assert.match(timeout.stdout.replace(/\s+/g, ' '), /in seconds \(60 to 900\)/);
      });

      it('refuses invalid objects with a message naming the field, as the JSON Schemas do, and keeps free-form JSON intact', async function () {
        const refused: { kind: ResourceKindName; object: KubeObject; field: string }[] = [
          { kind: 'Invocation', object: invocation('too-short', invocationSpec({ timeoutSeconds: 5 })), field: 'spec.timeoutSeconds' },
          { kind: 'Invocation', object: invocation('too-long', invocationSpec({ timeoutSeconds: 901 })), field: 'spec.timeoutSeconds' },
          { kind: 'Invocation', object: invocation('bad-session', invocationSpec({ sessionId: 'not-a-uuid' })), field: 'spec.sessionId' },
          { kind: 'Function', object: fn('slashed', { name: 'a/b' }), field: 'spec.name' },
          { kind: 'Function', object: fn('bad-version', { name: 'ok', version: { id: randomUUID(), number: 0, bundleConfigMap: 'b', createdAt: new Date().toISOString() } }), field: 'spec.version.number' },
          { kind: 'Build', object: build('no-entrypoint', { archiveConfigMap: 'upload' }), field: 'spec.entrypoint' },
          { kind: 'Build', object: build('bad-archive', { entrypoint: 'index.ts', archiveConfigMap: 'Not_A_Name' }), field: 'spec.archiveConfigMap' },
        ];
        for (const { kind, object, field } of refused) {
          const problems = resourceProblems(kind, object);
          assert.ok(problems?.includes(field), `ajv names ${field}: ${problems}`);
          const client = cluster.resource(Kinds[kind]);
          const err = await client.create(object).then(
            () => assert.fail(`the API server accepted ${kind} ${object.metadata.name}`),
            (e: unknown) => e,
          );
          assert.ok(err instanceof InvalidError, `${kind} ${object.metadata.name}: expected InvalidError, got ${String(err)}`);
          assert.ok(err.message.includes(field), `the API server's message names ${field}: ${err.message}`);
        }

        const builds = cluster.resource<BuildObject>(Kinds.Build);
        const accepted = await builds.create(build('accepted', { entrypoint: 'index.ts', archiveConfigMap: 'accepted-archive' }));
        assert.equal(resourceProblems('Build', { spec: accepted.spec, status: { phase: 'DONE' } }), 'status.phase must be equal to one of the allowed values');
        await assert.rejects(builds.updateStatus({ ...accepted, status: { phase: 'DONE' as 'FAILED' } }), (err: Error) => err instanceof InvalidError && err.message.includes('status.phase'));

        const spec = invocationSpec();
        const stored = await cluster.resource<InvocationObject>(Kinds.Invocation).create(invocation('free-form', spec));
        assert.equal(resourceProblems('Invocation', stored), undefined);
        assert.deepEqual(stored.spec, spec, 'params and sessionConfig keep every nested field');
        const results = [{ title: 'Example Domain' }, 'text', 42, null, { deep: { er: [true] } }];
        const finished = await cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...stored, status: { phase: 'COMPLETED', results } });
        assert.deepEqual(finished.status?.results, results);

        const manifest = stringify({ apiVersion: 'browserfn.dev/v1alpha1', kind: 'Function', metadata: { name: 'applied', namespace: ns }, spec: { name: 'bad\\name' } });
        const applied = await kubectl(['apply', '-f', '-'], manifest);
        assert.notEqual(applied.code, 0, 'kubectl apply refuses the manifest');
        assert.match(applied.stderr, /spec\.name/);
      });

      it('reports a kind the server does not serve as NotFoundError, not as a missing object', async function () {
        const unserved: ResourceType = { ...Kinds.Function, kind: 'Gadget', plural: 'gadgets' };
        await assert.rejects(cluster.resource(unserved).get(ns, 'anything'), (err: Error) => err instanceof NotFoundError && /CRDs installed/.test(err.message));
        assert.equal(await cluster.resource(Kinds.Function).get(ns, 'absent'), undefined);
      });

      it('reports a watch from a resourceVersion older than the server keeps as GoneError', async function () {
        // A new CRD's watch cache starts at the current resourceVersion, so "1" is certainly too old.
        const group = `gone-${randomBytes(4).toString('hex')}.test.browserfn.dev`;
        const gadgets: ResourceType = { group, version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true, hasStatusSubresource: false };
        const crds = cluster.resource<CrdObject>(CRD_TYPE);
        const crd = await crds.create({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `gadgets.${group}` },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
          },
        } as unknown as CrdObject);
        try {
          await eventually(async () => (await crds.get(undefined, crd.metadata.name))?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false, 'the CRD is Established');
          await eventually(async () => (await cluster.resource(gadgets).list(ns).then(() => true, () => false)), 'the new kind is served');
          let events = new EventCollector();
          let err: unknown;
          // A new kind's watch cache answers "storage is (re)initializing" until it has synced: wait that out.
          await eventually(async () => {
            events = new EventCollector();
            try {
              const watch = await cluster.resource(gadgets).watch(ns, { resourceVersion: '1' }, events.onEvent, events.onError);
              await watch.done;
              err = events.errors[0];
            } catch (refused) {
              err = refused;
            }
            return !/storage is \(re\)initializing/.test(String(err));
          }, 'the new kind\'s watch cache to be ready');
          assert.ok(err instanceof GoneError, `expected GoneError, got ${String(err)}`);
          assert.match(err.message, /too old resource version/);
          assert.deepEqual(events.events, []);
        } finally {
          await crds.delete(undefined, crd.metadata.name);
        }
      });

      it('resumes a watch across server-side timeouts without losing or repeating events', async function () {
        const quick = await openKubeCluster({ kubeconfigPath, minWatchTimeoutSeconds: 1 });
        try {
          const watchesBefore = await completedConfigMapWatches();
          const events = new EventCollector();
          const watch = await quick.resource(Kinds.ConfigMap).watch(ns, { labelSelector: 'resume=yes' }, events.onEvent, events.onError);
          const created: string[] = [];
          const createAndSee = async (name: string): Promise<void> => {
            await configMaps.create({ ...configMap(name), metadata: { name, namespace: ns, labels: { resume: 'yes' } } });
            created.push(name);
            await events.untilSeen('ADDED', name);
          };
          // Each request lasts about a second; after each one the server ends, events must keep coming.
          for (let round = 1; round <= 3; round++) {
            await createAndSee(`resume-${round}-before`);
            await eventually(async () => (await completedConfigMapWatches()) >= watchesBefore + round, `the server ended watch request ${round}`);
            await createAndSee(`resume-${round}-after`);
          }
          await watch.stop();
          assert.deepEqual(events.errors, []);
          assert.deepEqual(events.summary, created.map((name) => `ADDED ${name}`));
        } finally {
          await quick.close();
        }
      });

      describe('through a TCP relay that counts connections', function () {
        let proxy: TcpProxy;
        let proxied: ClusterPort;
        let tempDir: string;

        before(async function () {
          const config = parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string } }[] };
          const server = new URL(config.clusters[0].cluster.server);
          proxy = new TcpProxy(server.hostname, Number(server.port));
          const port = await proxy.listen();
          config.clusters[0].cluster.server = `https://127.0.0.1:${port}`;
          tempDir = mkdtempSync(join(tmpdir(), 'browserfn-kube-'));
          writeFileSync(join(tempDir, 'kubeconfig'), stringify(config));
          proxied = await openKubeCluster({ kubeconfigPath: join(tempDir, 'kubeconfig') });
          await proxied.resource(Kinds.ConfigMap).list(ns);
        });

        after(async function () {
          await proxied.close();
          await proxy.close();
          rmSync(tempDir, { recursive: true, force: true });
        });

        it('leaks no connection or file descriptor over many watch starts and stops', async function () {
          const proxiedConfigMaps = proxied.resource(Kinds.ConfigMap);
          const fdsBefore = openFds();
          const cycles = 40;
          for (let i = 0; i < cycles; i++) {
            const events = new EventCollector();
            const watch = await proxiedConfigMaps.watch(ns, { labelSelector: `cycle=${i}` }, events.onEvent, events.onError);
            await configMaps.create({ ...configMap(`cycle-${i}`), metadata: { name: `cycle-${i}`, namespace: ns, labels: { cycle: String(i) } } });
            await events.untilSeen('ADDED', `cycle-${i}`);
            await watch.stop();
            assert.deepEqual(events.errors, []);
          }
          assert.ok(proxy.open <= 2, `after ${cycles} watches only pooled connections stay open (open: ${proxy.open})`);
          assert.ok(openFds() - fdsBefore <= 3, `file descriptors did not grow with the watches (before ${fdsBefore}, after ${openFds()})`);
        });

        it('an informer restarts after every dropped connection, catches up, and leaks nothing', async function () {
          const informer = new Informer(proxied, Kinds.ConfigMap, createLogger('silent'), { namespace: ns, labelSelector: 'dropped=yes' });
          informer.start();
          await informer.waitForSync();
          const fdsBefore = openFds();
          const acceptedBefore = proxy.accepted;
          const cuts = 10;
          for (let i = 0; i < cuts; i++) {
            proxy.cutAll();
            // The first object reaches the informer through its relist after the cut, the second
            // through the new watch (which also resets the informer's backoff).
            for (const name of [`after-cut-${i}`, `after-rewatch-${i}`]) {
              await configMaps.create({ ...configMap(name), metadata: { name, namespace: ns, labels: { dropped: 'yes' } } });
              await eventually(async () => informer.get(ns, name) !== undefined, `the informer has ${name} after connection cut ${i + 1}`);
            }
          }
          await informer.stop();
          assert.equal(informer.list().length, 2 * cuts);
          assert.ok(proxy.accepted - acceptedBefore >= cuts, `the informer reconnected after each cut (${proxy.accepted - acceptedBefore} new connections)`);
          assert.ok(proxy.open <= 2, `after ${cuts} reconnects only pooled connections stay open (open: ${proxy.open})`);
          assert.ok(openFds() - fdsBefore <= 3, `file descriptors did not grow with the reconnects (before ${fdsBefore}, after ${openFds()})`);
        });
      });
    });
  });
}
