// Attack: reach another pod's input (its secrets), artifact or report with a token that is not
// that pod's own — forged, another pod's, expired, or left over from a deleted pod whose name was
// used again — or make the façade buffer huge report bodies without any valid token. Every internal
// route answers 401/404 and reads or writes nothing; an oversized body is refused while the client
// is still sending it; and the token is in no Pod object (it is in the pod's own token Secret).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.js';
import { internalRoutes } from '../../src/api/routes/index.js';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject, ownerReferenceTo, type KubeObject, type ResourceType } from '../../src/cluster/objects.js';
import type { ClusterPort, ResourceClient } from '../../src/cluster/port.js';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { Metrics } from '../../src/config/metrics.js';
import { issuePodToken } from '../../src/runtime/pod-token.js';
import { POD_TOKEN_KEY, podTokenSecretName } from '../../src/controller/pods/token-secret.js';
import { archiveName } from '../../src/functions/builds.js';
import { contentArtifactName, writeArtifact } from '../../src/functions/stored/artifact-store.js';
import { outcomeName } from '../../src/functions/stored/invocation-outcome.js';
import { readSessionRecords, sessionRecordsName } from '../../src/functions/stored/session-records.js';
import { buildOutputName } from '../../src/functions/stored/build-output.js';
import { Annotations, Labels, Roles, type BrowserPoolObject, type BuildObject, type InvocationObject } from '../../src/schemas/resources.js';
import { claimedMember, poolMemberPod } from '../../src/controller/pods/pool-member.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { REPORT_BODY_LIMITS, SESSION_RECORDS_BODY_LIMIT } from '../../src/schemas/report-limits.js';
import { ContainerConfigError, resolveContainerEnv } from '../../src/runtime/node-agent/container-env.js';
import { startTestService, waitFor, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import { WaitingInvocations } from '../../src/functions/waiting-invocations.js';

const SIGNING_KEY = randomBytes(32).toString('hex');
const NS = 'proj-a';
const OTHER_NS = 'proj-b';
const PARAMS_MARKER = `params-marker-${randomBytes(8).toString('hex')}`;
const ARCHIVE_MARKER = `archive-marker-${randomBytes(8).toString('hex')}`;
const HOUR = 3600;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Every internal route, as a request a pod would make (the list comes from the route table). */
const ROUTES = internalRoutes.map((route) => ({
  method: route.method.toUpperCase(),
  // A pool member's wait for its assignment is asked not to wait here.
  path: (ns: string, name: string) =>
    route.path.replace(':namespace', encodeURIComponent(ns)).replace(':name', encodeURIComponent(name)).replace(':file', 'manifest.json') + (route.path.endsWith('/assignment') ? '?waitSeconds=0' : ''),
  body: route.method === 'post' ? invocationReport() : undefined,
}));

function invocationReport(): object {
  const now = new Date().toISOString();
  return { kind: 'invocation', phase: 'COMPLETED', results: { forged: true }, startedAt: now, endedAt: now, logs: [], sessionLogs: [] };
}

interface Facade {
  url: string;
  cluster: ClusterPort;
  close(): Promise<void>;
}

async function startFacade(): Promise<Facade> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-pod-tokens-'));
  const settings = loadSettings({ dataDir, env: { BROWSERFN_POD_TOKEN_SECRET: SIGNING_KEY, BROWSERFN_API_KEYS: 'k:proj-a' } });
  const cluster = await openEmbeddedCluster({ file: join(dataDir, 'store.db'), encryptionKey: randomBytes(32) });
  const app = createApp({ settings, cluster, log: createLogger('silent'), metrics: new Metrics(), archive: null as unknown as Archive, waitingInvocations: new WaitingInvocations(cluster) }, { routes: internalRoutes });
  const server: Server = createServer(app.callback());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cluster,
    async close() {
      server.closeAllConnections();
      server.close();
      await cluster.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const artifactOf = (namespace: string): Buffer => Buffer.from(`${ARCHIVE_MARKER} of ${namespace}`);

/** An Invocation with its artifact and browser pod, as the controller would make them. */
async function invocationWithPod(cluster: ClusterPort, namespace: string, name: string): Promise<PodObject> {
  const artifact = artifactOf(namespace);
  const inv = await cluster.resource<InvocationObject>(Kinds.Invocation).create(
    newObject<InvocationObject>(Kinds.Invocation, { name, namespace }, {
      spec: {
        functionName: 'f',
        functionUid: randomUUID(),
        versionId: randomUUID(),
        bundleConfigMap: contentArtifactName(createHash('sha256').update(artifact).digest('hex')),
        params: { marker: PARAMS_MARKER },
        sessionConfig: {},
        timeoutSeconds: 60,
        sessionId: randomUUID(),
      },
    }),
  );
  await writeArtifact(cluster, namespace, artifact, { owner: inv, maxBytes: 1024 });
  return createPod(cluster, inv, `${name}-a1`, { [Labels.role]: Roles.browserPod, [Labels.invocationName]: name });
}

async function buildWithPod(cluster: ClusterPort, namespace: string, name: string): Promise<PodObject> {
  const build = await cluster.resource<BuildObject>(Kinds.Build).create(newObject<BuildObject>(Kinds.Build, { name, namespace }, { spec: { entrypoint: 'index.ts', archiveConfigMap: archiveName(name) } }));
  await writeArtifact(cluster, namespace, artifactOf(namespace), { owner: build, name: archiveName(name), maxBytes: 1024 });
  return createPod(cluster, build, `${name}-build`, { [Labels.role]: Roles.buildPod, [Labels.buildName]: name });
}

function createPod(cluster: ClusterPort, owner: KubeObject, name: string, labels: Record<string, string>): Promise<PodObject> {
  return cluster.resource<PodObject>(Kinds.Pod).create(
    newObject<PodObject>(Kinds.Pod, { name, namespace: owner.metadata.namespace, labels, ownerReferences: [ownerReferenceTo(owner)] }, {
      // Bound to a node nobody runs: the pod object exists, nothing executes it.
      spec: { nodeName: 'no-such-node', restartPolicy: 'Never', activeDeadlineSeconds: 120, containers: [{ name: 'agent', image: 'img' }] },
    }),
  );
}

const tokenFor = (pod: PodObject, overrides: Partial<{ exp: number; uid: string; key: string; name: string }> = {}): string =>
  issuePodToken(overrides.key ?? SIGNING_KEY, {
    namespace: pod.metadata.namespace!,
    name: overrides.name ?? pod.metadata.name,
    uid: overrides.uid ?? pod.metadata.uid!,
    exp: overrides.exp ?? nowSeconds() + HOUR,
  });

async function call(facade: Facade, route: (typeof ROUTES)[number], pod: { namespace: string; name: string }, token: string | undefined) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (route.body) headers['content-type'] = 'application/json';
  const res = await fetch(facade.url + route.path(pod.namespace, pod.name), { method: route.method, headers, body: route.body && JSON.stringify(route.body) });
  return { status: res.status, text: await res.text() };
}

/** Sends headers and the first part of a large body, then waits for the answer without sending the rest. */
function partialUpload(url: string, path: string, headers: Record<string, string>, declaredBytes: number, sentBytes: number): Promise<{ head: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let answered = false;
    socket.on('error', (err) => (answered ? undefined : reject(err)));
    socket.on('connect', () => {
      const lines = [`POST ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'content-type: application/json', `content-length: ${declaredBytes}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(Buffer.alloc(sentBytes, 0x20));
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      answered = true;
    });
    // The server closes the connection after answering instead of reading the rest of the body.
    socket.on('close', () => (answered ? resolve({ head: received, closedByServer: true }) : reject(new Error('closed without an answer'))));
  });
}

describe('attack: pod tokens on the internal routes', function () {
  this.timeout(120_000);
  let facade: Facade;
  let browserPod: PodObject;
  let buildPod: PodObject;
  let otherPod: PodObject;

  before(async () => {
    facade = await startFacade();
    browserPod = await invocationWithPod(facade.cluster, NS, 'inv-1');
    buildPod = await buildWithPod(facade.cluster, NS, 'build-1');
    otherPod = await invocationWithPod(facade.cluster, OTHER_NS, 'inv-2');
  });
  after(async () => facade?.close());

  it('lists every internal route (input, assignment, artifact to get and to store, recording, report, session records)', () => {
    assert.deepEqual(ROUTES.map((r) => `${r.method} ${r.path('n', 'p')}`).sort(), [
      'GET /internal/v1/pods/n/p/artifact',
      'GET /internal/v1/pods/n/p/assignment?waitSeconds=0',
      'GET /internal/v1/pods/n/p/input',
      'POST /internal/v1/pods/n/p/report',
      'POST /internal/v1/pods/n/p/session-records',
      'PUT /internal/v1/pods/n/p/artifact',
      'PUT /internal/v1/pods/n/p/recording/manifest.json',
    ]);
  });

  it("serves a pod only its own project's artifact, and lets only build pods store one", async () => {
    const artifactRoute = ROUTES.find((r) => r.method === 'GET' && r.path('n', 'p').endsWith('/artifact'))!;
    const own = await call(facade, artifactRoute, { namespace: NS, name: browserPod.metadata.name }, tokenFor(browserPod));
    assert.equal(own.status, 200);
    assert.equal(own.text, artifactOf(NS).toString());
    // Project B's pod asks for project A's pod path, or names its own pod under project A: both are refused unread.
    for (const target of [{ namespace: NS, name: browserPod.metadata.name }, { namespace: NS, name: otherPod.metadata.name }]) {
      const res = await call(facade, artifactRoute, target, tokenFor(otherPod));
      assert.equal(res.status, 401, res.text);
      assert.ok(!res.text.includes(ARCHIVE_MARKER));
    }
    const store = await fetch(facade.url + artifactRoute.path(NS, browserPod.metadata.name), {
      method: 'PUT',
      headers: { authorization: `Bearer ${tokenFor(browserPod)}`, 'x-artifact-sha256': '0'.repeat(64) },
      body: 'x',
    });
    assert.equal(store.status, 403, 'a browser pod cannot store artifacts');
  });

  it("a pod's own valid token works on every route (the control case)", async () => {
    for (const pod of [browserPod, buildPod]) {
      for (const route of ROUTES.filter((r) => r.method === 'GET')) {
        const res = await call(facade, route, { namespace: NS, name: pod.metadata.name }, tokenFor(pod));
        // Only pool members wait for an assignment.
        const expected = route.path(NS, pod.metadata.name).includes('/assignment') ? 409 : 200;
        assert.equal(res.status, expected, `${route.path(NS, pod.metadata.name)}: ${res.text}`);
      }
    }
  });

  it('a pool member with its own token gets nothing before it is claimed, then exactly its invocation', async () => {
    const pool = await facade.cluster
      .resource<BrowserPoolObject>(Kinds.BrowserPool)
      .create(newObject<BrowserPoolObject>(Kinds.BrowserPool, { name: 'warm', namespace: NS }, { spec: { minIdle: 1, maxIdle: 1 } }));
    const member = await createPod(facade.cluster, pool, 'warm-member', { [Labels.role]: Roles.browserPod, [Labels.pool]: 'warm' });
    const at = (route: string, wait = '') => fetch(`${facade.url}/internal/v1/pods/${NS}/${member.metadata.name}/${route}${wait}`, { headers: { authorization: `Bearer ${tokenFor(member)}` } });
    assert.equal((await at('assignment', '?waitSeconds=0')).status, 204, 'not claimed yet');
    const ready = (await facade.cluster.resource<PodObject>(Kinds.Pod).get(NS, member.metadata.name))!;
    assert.ok(ready.metadata.annotations?.[Annotations.memberReady], 'its first ask marks it ready');
    for (const route of ['input', 'artifact']) {
      const res = await at(route);
      assert.equal(res.status, 409, route);
      assert.ok(!(await res.text()).includes(PARAMS_MARKER));
    }
    // A member of another project asking under this one's name is refused unread.
    const foreign = await fetch(`${facade.url}/internal/v1/pods/${NS}/${member.metadata.name}/assignment?waitSeconds=0`, { headers: { authorization: `Bearer ${tokenFor(otherPod)}` } });
    assert.equal(foreign.status, 401);

    // Claimed for an invocation that names another pod (a claim that lost its race): nothing of it.
    const inv = (await facade.cluster.resource<InvocationObject>(Kinds.Invocation).get(NS, 'inv-1'))!;
    const claimed = await facade.cluster.resource<PodObject>(Kinds.Pod).update(claimedMember(ready, inv, new Date()));
    const elsewhere = await at('assignment', '?waitSeconds=0');
    assert.equal(elsewhere.status, 409);
    assert.ok(!(await elsewhere.text()).includes(PARAMS_MARKER));

    const { [Labels.invocationName]: _claim, ...idleLabels } = claimed.metadata.labels ?? {};
    const idleAgain = await facade.cluster.resource<PodObject>(Kinds.Pod).update({ ...claimed, metadata: { ...claimed.metadata, labels: idleLabels } });
    const waiting = at('assignment', '?waitSeconds=20');
    // As the controller does: the invocation names the member, then the member is claimed.
    await facade.cluster.resource<InvocationObject>(Kinds.Invocation).updateStatus({ ...inv, status: { ...inv.status, podName: member.metadata.name } });
    await facade.cluster.resource<PodObject>(Kinds.Pod).update(claimedMember(idleAgain, inv, new Date()));
    const answer = await waiting;
    assert.equal(answer.status, 200, 'the waiting ask is answered once the member is claimed');
    const input = (await answer.json()) as { invocationId: string; params: { marker: string }; artifactSha256: string; artifactBase64?: string };
    assert.equal(input.invocationId, 'inv-1');
    assert.equal(input.params.marker, PARAMS_MARKER);
    assert.equal(input.artifactSha256, createHash('sha256').update(artifactOf(NS)).digest('hex'));
    assert.deepEqual(Buffer.from(input.artifactBase64 ?? '', 'base64'), artifactOf(NS), 'its own artifact, small, comes with the assignment');
    assert.equal((await at('artifact')).status, 200, 'claimed, it fetches its artifact');
  });

  it("a pool member loading its pool's code ahead gets that artifact before it is claimed, from its own project only, and nothing else", async () => {
    const bundleOf = async (namespace: string, name: string) => (await facade.cluster.resource<InvocationObject>(Kinds.Invocation).get(namespace, name))!.spec.bundleConfigMap;
    const memberLoading = async (poolName: string, preloadArtifact: string) => {
      const pool = await facade.cluster
        .resource<BrowserPoolObject>(Kinds.BrowserPool)
        .create(newObject<BrowserPoolObject>(Kinds.BrowserPool, { name: poolName, namespace: NS }, { spec: { minIdle: 1, maxIdle: 1, preloadArtifact } }));
      return facade.cluster.resource<PodObject>(Kinds.Pod).create(poolMemberPod(pool, { controlUrl: 'http://127.0.0.1:1', podTokenSecret: 'x', image: 'img' }, new Date()));
    };
    const at = (pod: PodObject, route: string) => fetch(`${facade.url}/internal/v1/pods/${NS}/${pod.metadata.name}/${route}`, { headers: { authorization: `Bearer ${tokenFor(pod)}` } });

    const ahead = await memberLoading('ahead', await bundleOf(NS, 'inv-1'));
    const own = await at(ahead, 'artifact');
    assert.equal(own.status, 200);
    assert.equal(await own.text(), artifactOf(NS).toString());
    const input = await at(ahead, 'input');
    assert.equal(input.status, 409, 'no invocation before it is claimed');
    assert.ok(!(await input.text()).includes(PARAMS_MARKER));

    // Another project's artifact named in its pool: names resolve in the member's own namespace, where it is not.
    const foreign = await memberLoading('foreign', await bundleOf(OTHER_NS, 'inv-2'));
    const res = await at(foreign, 'artifact');
    assert.equal(res.status, 404);
    assert.ok(!(await res.text()).includes(ARCHIVE_MARKER));
  });

  const attempts: { why: string; token: () => string | undefined; status: number }[] = [
    { why: 'no token', token: () => undefined, status: 401 },
    { why: 'a garbage token', token: () => 'not-a-token', status: 401 },
    { why: 'a token signed with another key', token: () => tokenFor(browserPod, { key: randomBytes(32).toString('hex') }), status: 401 },
    { why: 'a token with its signature of another payload', token: () => `${tokenFor(otherPod).split('.')[0]}.${tokenFor(browserPod).split('.')[1]}`, status: 401 },
    { why: 'the old never-expiring HMAC of the pod name', token: () => createHmac('sha256', SIGNING_KEY).update(`${NS}/${browserPod.metadata.name}`).digest('base64url'), status: 401 },
    { why: 'another pod’s token (another project)', token: () => tokenFor(otherPod), status: 401 },
    { why: 'another pod’s token (same project)', token: () => tokenFor(buildPod), status: 401 },
    { why: 'a token naming this pod with another pod’s UID', token: () => tokenFor(browserPod, { uid: buildPod.metadata.uid }), status: 401 },
    { why: 'an expired token', token: () => tokenFor(browserPod, { exp: nowSeconds() - 1 }), status: 401 },
  ];

  for (const attempt of attempts) {
    it(`refuses ${attempt.why} on every route, reading and writing nothing`, async () => {
      for (const route of ROUTES) {
        const res = await call(facade, route, { namespace: NS, name: browserPod.metadata.name }, attempt.token());
        assert.equal(res.status, attempt.status, `${route.method} ${route.path(NS, browserPod.metadata.name)}: ${res.text}`);
        assert.ok(!res.text.includes(PARAMS_MARKER) && !res.text.includes(ARCHIVE_MARKER), 'nothing of the pod was read');
      }
      assert.equal(await facade.cluster.resource(Kinds.ConfigMap).get(NS, outcomeName('inv-1')), undefined, 'no report was stored');
      assert.equal(await facade.cluster.resource(Kinds.ConfigMap).get(NS, sessionRecordsName('inv-1')), undefined, 'no session records were stored');
    });
  }

  it('lets only a browser pod store session records, for its own invocation, within the size limit and of the shape the console shows', async () => {
    const route = ROUTES.find((r) => r.path('n', 'p').endsWith('/session-records'))!;
    const records = { sessionLogs: [{ method: 'Page.loadEventFired', timestamp: 1, params: {} }] };
    const fromBuild = await call(facade, { ...route, body: records }, { namespace: NS, name: buildPod.metadata.name }, tokenFor(buildPod));
    assert.equal(fromBuild.status, 403, fromBuild.text);
    const tooLarge = await partialUpload(facade.url, route.path(NS, browserPod.metadata.name), { authorization: `Bearer ${tokenFor(browserPod)}` }, SESSION_RECORDS_BODY_LIMIT + 1, 1024);
    assert.match(tooLarge.head, /^HTTP\/1\.1 413 /);
    const pod = await invocationWithPod(facade.cluster, NS, 'inv-records');
    const own = await call(facade, { ...route, body: records }, { namespace: NS, name: pod.metadata.name }, tokenFor(pod));
    assert.equal(own.status, 204, own.text);
    const stored = await facade.cluster.resource(Kinds.ConfigMap).get(NS, sessionRecordsName('inv-records'));
    assert.deepEqual(readSessionRecords(stored).sessionLogs.map((entry) => entry.method), ['Page.loadEventFired']);
    assert.equal(stored?.metadata.ownerReferences?.[0]?.name, 'inv-records', 'owned by its own invocation');
    // What the console shows of them is numbers and short ids: a post with an infinite time, a huge id or a metric that is no number is refused.
    const forger = await invocationWithPod(facade.cluster, NS, 'inv-forged');
    for (const body of [
      '{"sessionLogs":[{"method":"Page.loadEventFired","timestamp":1e999,"params":{}}]}',
      JSON.stringify({ sessionLogs: [{ method: 'Page.loadEventFired', timestamp: 1, pageId: 'p'.repeat(500), params: {} }] }),
      JSON.stringify({ sessionLogs: [], metrics: { samples: [{ timestamp: 1, pageId: 'p', metrics: { JSHeapUsedSize: 'a lot' } }], navigations: [] } }),
    ]) {
      const res = await fetch(facade.url + route.path(NS, forger.metadata.name), { method: 'POST', headers: { authorization: `Bearer ${tokenFor(forger)}`, 'content-type': 'application/json' }, body });
      assert.equal(res.status, 400, body);
    }
    assert.ok(!(await facade.cluster.resource(Kinds.ConfigMap).get(NS, sessionRecordsName('inv-forged'))), 'nothing stored');
  });

  it("refuses a deleted pod's token for a new pod of the same name", async () => {
    const first = await buildWithPod(facade.cluster, NS, 'build-2');
    const oldToken = tokenFor(first);
    await facade.cluster.resource(Kinds.Pod).delete(NS, first.metadata.name, { gracePeriodSeconds: 0 });
    const build = (await facade.cluster.resource<BuildObject>(Kinds.Build).get(NS, 'build-2'))!;
    const second = await createPod(facade.cluster, build, first.metadata.name, { [Labels.role]: Roles.buildPod, [Labels.buildName]: 'build-2' });
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    const buildReport = { kind: 'build', phase: 'FAILED', cause: { code: 'X', message: 'forged' }, logs: [] };
    for (const route of ROUTES) {
      const res = await call(facade, { ...route, body: route.body && buildReport }, { namespace: NS, name: second.metadata.name }, oldToken);
      assert.equal(res.status, 401, `${route.method} ${route.path(NS, second.metadata.name)}: ${res.text}`);
      assert.ok(!res.text.includes(ARCHIVE_MARKER));
    }
    assert.equal(await facade.cluster.resource(Kinds.ConfigMap).get(NS, buildOutputName('build-2')), undefined, 'no build output was stored');
    // The new pod's own token works.
    const own = await call(facade, ROUTES.find((r) => r.path('a', 'b').endsWith('/input'))!, { namespace: NS, name: second.metadata.name }, tokenFor(second));
    assert.equal(own.status, 200, own.text);
  });

  it('answers 404 for a valid token of a pod that is gone', async () => {
    const pod = await invocationWithPod(facade.cluster, NS, 'inv-3');
    const token = tokenFor(pod);
    await facade.cluster.resource(Kinds.Pod).delete(NS, pod.metadata.name, { gracePeriodSeconds: 0 });
    for (const route of ROUTES) assert.equal((await call(facade, route, { namespace: NS, name: pod.metadata.name }, token)).status, 404);
  });

  it('refuses a 16 MiB report without a valid token while the client is still sending it', async () => {
    const path = ROUTES.find((r) => r.method === 'POST')!.path(NS, browserPod.metadata.name);
    const forged = await partialUpload(facade.url, path, { authorization: `Bearer ${tokenFor(browserPod, { key: 'wrong' })}` }, 16 * 1024 * 1024, 64 * 1024);
    assert.match(forged.head, /^HTTP\/1\.1 401 /);
    assert.ok(forged.closedByServer, 'the server hangs up rather than read the rest');
    const none = await partialUpload(facade.url, path, {}, 16 * 1024 * 1024, 1024);
    assert.match(none.head, /^HTTP\/1\.1 401 /);
  });

  it('refuses a body over the route limit with 413 before reading it, even with a valid token', async () => {
    const path = ROUTES.find((r) => r.method === 'POST')!.path(NS, browserPod.metadata.name);
    const tooLarge = await partialUpload(facade.url, path, { authorization: `Bearer ${tokenFor(browserPod)}` }, REPORT_BODY_LIMITS.invocation + 1, 1024);
    assert.match(tooLarge.head, /^HTTP\/1\.1 413 /);
    assert.ok(REPORT_BODY_LIMITS.invocation <= 1.25 * 1024 * 1024, `an invocation report is at most ~1 MiB (${REPORT_BODY_LIMITS.invocation})`);
    assert.equal(await facade.cluster.resource(Kinds.ConfigMap).get(NS, outcomeName('inv-1')), undefined);
  });

  it('answers malformed percent-escapes in internal paths with a 4xx and keeps serving', async () => {
    for (const path of ['/internal/v1/pods/%E0%A4%A/x/input', '/internal/v1/pods/proj-a/%/report', '/internal/v1/pods/%zz/%ff%fe/artifact']) {
      const res = await fetch(facade.url + path, { method: path.endsWith('report') ? 'POST' : 'GET', headers: { authorization: `Bearer ${tokenFor(browserPod)}` } });
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
    }
    assert.equal((await call(facade, ROUTES[0], { namespace: NS, name: browserPod.metadata.name }, tokenFor(browserPod))).status < 300, true);
  });
});

describe('the node agent resolves env valueFrom.secretKeyRef like a kubelet', function () {
  this.timeout(60_000);
  let facade: Facade;
  before(async () => {
    facade = await startFacade();
  });
  after(async () => facade?.close());

  const container = { name: 'agent', image: 'img', env: [{ name: 'PLAIN', value: 'p' }, { name: 'BROWSERFN_POD_TOKEN', valueFrom: { secretKeyRef: { name: 'late-a1-token', key: POD_TOKEN_KEY } } }] };

  it('waits for a Secret the controller creates after the pod', async () => {
    const pod = await invocationWithPod(facade.cluster, NS, 'late');
    let firstLookup!: () => void;
    const lookedUp = new Promise<void>((resolve) => (firstLookup = resolve));
    // The same store, telling the test when the agent has looked for the Secret (and not found it).
    const watching = {
      backend: facade.cluster.backend,
      close: () => facade.cluster.close(),
      resource: (type: ResourceType) => {
        const inner = facade.cluster.resource(type);
        return Object.assign(Object.create(inner) as ResourceClient, { get: (ns: string | undefined, name: string) => inner.get(ns, name).finally(firstLookup) });
      },
    } as ClusterPort;
    const env = resolveContainerEnv(watching, pod, container, { timeoutMs: 30_000 });
    await lookedUp;
    const token = tokenFor(pod);
    await facade.cluster.resource(Kinds.Secret).create(
      newObject<KubeObject>(Kinds.Secret, { name: 'late-a1-token', namespace: NS, ownerReferences: [ownerReferenceTo(pod)] }, { data: { [POD_TOKEN_KEY]: Buffer.from(token).toString('base64') } }),
    );
    assert.deepEqual(await env, { PLAIN: 'p', BROWSERFN_POD_TOKEN: token });
  });

  it('fails the pod clearly, naming the Secret, when it never appears', async () => {
    const pod = await invocationWithPod(facade.cluster, NS, 'never');
    const missing = { ...container, env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'never-a1-token', key: POD_TOKEN_KEY } } }] };
    await assert.rejects(resolveContainerEnv(facade.cluster, pod, missing, { timeoutMs: 300 }), (err: Error) => {
      assert.ok(err instanceof ContainerConfigError);
      assert.equal(err.reason, 'CreateContainerConfigError');
      assert.match(err.message, /secret "never-a1-token" not found in namespace proj-a/);
      return true;
    });
    const optional = { ...container, env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'never-a1-token', key: POD_TOKEN_KEY, optional: true } } }] };
    assert.deepEqual(await resolveContainerEnv(facade.cluster, pod, optional, { timeoutMs: 30_000 }), {}, 'an optional reference is left unset at once');
  });
});

describe('attack: pod tokens on the serve stack', function () {
  this.timeout(300_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.stop());

  it('keeps the token out of the Pod object, in a Secret owned by the pod that goes with it, useless once the pod is gone', async () => {
    const pods = new Map<string, PodObject>();
    const tokenSecrets = new Map<string, KubeObject>();
    const podWatch = await svc.service.cluster.resource<PodObject>(Kinds.Pod).watch('default', {}, (e) => pods.set(e.object.metadata.uid!, e.object));
    const secretWatch = await svc.service.cluster.resource(Kinds.Secret).watch('default', { labelSelector: `${Labels.role}=${Roles.podToken}` }, (e) => {
      if (e.type !== 'DELETED') tokenSecrets.set(e.object.metadata.name, e.object);
    });
    try {
      const build = await publish(svc, writeProject({ 'index.ts': `import { defineFn } from 'browserfn';\ndefineFn('hello', async () => ({ ok: true }));\n` }));
      assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
      const inv = await invokeAndWait(svc, build.builtFunctions![0].id, {});
      assert.equal(inv.status, 'COMPLETED', JSON.stringify(inv.cause));

      // The pods that ran the build and the invocation (idle warm pool members wait on).
      const seen = [...pods.values()].filter((p) => p.metadata.labels?.[Labels.buildName] || p.metadata.labels?.[Labels.invocationName]);
      assert.ok(seen.some((p) => p.metadata.labels?.[Labels.role] === Roles.buildPod) && seen.some((p) => p.metadata.labels?.[Labels.role] === Roles.browserPod), 'a build pod and a browser pod ran');
      for (const pod of seen) {
        const env = pod.spec.containers.flatMap((c) => c.env ?? []);
        const tokenEnv = env.find((e) => e.name === 'BROWSERFN_POD_TOKEN')!;
        assert.equal(tokenEnv.value, undefined, 'no literal token in the pod spec');
        assert.deepEqual(tokenEnv.valueFrom, { secretKeyRef: { name: podTokenSecretName(pod.metadata.name), key: POD_TOKEN_KEY } });
        const secret = tokenSecrets.get(podTokenSecretName(pod.metadata.name));
        assert.ok(secret, `the token Secret of ${pod.metadata.name} was made`);
        assert.equal(secret.metadata.ownerReferences?.[0].uid, pod.metadata.uid, 'owned by its pod');
        const token = Buffer.from(secret.data![POD_TOKEN_KEY], 'base64').toString();
        assert.ok(!JSON.stringify(pod).includes(token), 'the token is nowhere in the Pod object');
        // Once the pod has ended and is gone (a browser pod closes its session after the invocation ends), its token opens nothing.
        await waitFor(`pod ${pod.metadata.name} to be gone`, async () => ((await svc.service.cluster.resource(Kinds.Pod).get('default', pod.metadata.name)) ? undefined : true), 30_000);
        const res = await fetch(`${svc.url}/internal/v1/pods/default/${pod.metadata.name}/input`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 404);
        // It expires: the pod's deadline plus a start allowance, not never.
        const claims = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { exp: number; uid: string };
        assert.equal(claims.uid, pod.metadata.uid);
        assert.ok(claims.exp > nowSeconds() && claims.exp < nowSeconds() + (pod.spec.activeDeadlineSeconds ?? 0) + 600);
      }
      // Garbage-collected with their pods.
      await waitFor('token Secrets to go with their pods', async () => {
        const left = await svc.service.cluster.resource(Kinds.Secret).list('default', { labelSelector: `${Labels.role}=${Roles.podToken}` });
        return left.items.every((secret) => !seen.some((pod) => secret.metadata.name === podTokenSecretName(pod.metadata.name))) ? true : undefined;
      }, 30_000);
    } finally {
      await podWatch.stop();
      await secretWatch.stop();
    }
  });
});
