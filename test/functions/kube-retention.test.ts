// Retention on a real kube-apiserver with the S3 artifact store on a real S3-compatible server
// (versitygw): an invocation and its build leave the API server once their TTL passes (their
// ConfigMaps, pods and token Secrets follow through the garbage collector), the same GETs answer
// from the bucket, another project gets 404, and after retention they are 404 and the bucket is
// empty. The namespace's object count returns to where it was.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Kinds } from '../../src/cluster/objects.js';
import { loadSettings } from '../../src/config/settings.js';
import { createLogger } from '../../src/config/logger.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { S3ArtifactStore } from '../../src/artifacts/s3.js';
import { ensureControlPlane, kubectl, type ControlPlane } from '../support/controlplane.js';
import { ensureS3Server } from '../support/s3-server.js';
import { assertNoProcessesUnder } from '../support/processes.js';
import { writeProject } from '../support/projects.js';
import { invokeAndWait, publish } from '../support/publish.js';
import { waitFor, type TestService } from '../support/service.js';

const FN = `
import { defineFn } from 'browserfn';
defineFn('retained', async (ctx, params: { tag: string }) => {
  console.log('tag is', params.tag);
  return { tag: params.tag };
});
`;
const RETENTION_SECONDS = 30;
const KINDS = [Kinds.Function, Kinds.Build, Kinds.Invocation, Kinds.ConfigMap, Kinds.Pod, Kinds.Secret];

describe('retention on a real kube-apiserver with the S3 artifact store', function () {
  this.timeout(600_000);
  let plane: ControlPlane;
  const project = `retention-${randomBytes(3).toString('hex')}`;
  const nodeName = `node-${project}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-kube-retention-'));
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  const keyPrefix = `${project}/`;
  let service: RunningService | undefined;
  let bucketStore: S3ArtifactStore | undefined;

  const client = (key = apiKey): TestService =>
    ({
      async request(method: string, path: string, body?: unknown) {
        const init: RequestInit = { method, headers: { 'x-svc-api-key': key } };
        if (body instanceof FormData) init.body = body;
        else if (body !== undefined) {
          init.body = JSON.stringify(body);
          (init.headers as Record<string, string>)['content-type'] = 'application/json';
        }
        const response = await fetch(service!.url + path, init);
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      },
    }) as unknown as TestService;

  before(async function () {
    plane = await ensureControlPlane();
    const s3 = await ensureS3Server();
    if (plane.state === 'no-go' || s3.state === 'no-go') {
      console.warn(`\n*** SKIPPING the Kubernetes retention suite: ${plane.state === 'no-go' ? plane.reason : (s3 as { reason: string }).reason} ***\n`);
      this.skip();
    }
    if (plane.state !== 'ready') throw new Error(`the test control plane did not start: ${plane.reason}`);
    if (s3.state !== 'ready') throw new Error(`the test S3 server did not start: ${s3.reason}`);
    const bucket = `browserfn-kube-${randomBytes(4).toString('hex')}`;
    const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    const admin = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    admin.destroy();
    bucketStore = new S3ArtifactStore({ kind: 's3', endpoint: s3.endpoint, region: 'us-east-1', bucket, keyPrefix, forcePathStyle: true, credentials });
    const ns = await kubectl(['create', 'namespace', project]);
    assert.equal(ns.code, 0, ns.stderr);
    const env = {
      BROWSERFN_API_KEYS: `${apiKey}:${project},other-key:other-${project}`,
      BROWSERFN_POD_TOKEN_SECRET: randomBytes(24).toString('hex'),
      BROWSERFN_NPM_CACHE: join(tmpdir(), 'browserfn-test-npm-cache'),
      BROWSERFN_SANDBOX_NETWORK: 'host',
      // Only the pods of what it runs, so it can watch them all go.
      BROWSERFN_WARM_POOL_SIZE: '0',
      BROWSERFN_FINISHED_TTL_SECONDS: '1',
      BROWSERFN_RETENTION_DAYS: String(RETENTION_SECONDS / 86_400),
      BROWSERFN_RETENTION_SWEEP_SECONDS: '1',
      BROWSERFN_ARTIFACT_STORE: 's3',
      BROWSERFN_S3_ENDPOINT: s3.endpoint,
      BROWSERFN_S3_BUCKET: bucket,
      BROWSERFN_S3_KEY_PREFIX: keyPrefix,
      BROWSERFN_S3_ACCESS_KEY_ID: s3.accessKeyId,
      BROWSERFN_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
    service = await startService(
      loadSettings({ dataDir, port: 0, host: '127.0.0.1', env }),
      { backend: 'kube', kubeconfigPath: plane.kubeconfigPath, api: true, controllers: true, nodeAgent: true, nodeName, image: 'browserfn:test' },
      createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    );
  });

  after(async () => {
    await service?.stop();
    await bucketStore?.close();
    if (plane?.state === 'ready') {
      await kubectl(['delete', 'namespace', project, '--wait=false']);
      await kubectl(['delete', 'node', nodeName, '--wait=false']);
      if (plane.startedHere) await plane.stop();
    }
    try {
      await assertNoProcessesUnder(dataDir, 'the service stopped');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const counts = async () => {
    const result: Record<string, number> = {};
    for (const kind of KINDS) result[kind.kind] = (await service!.cluster.resource(kind).list(project)).items.length;
    return JSON.stringify(result);
  };
  // This project's records only: the operator is cluster-wide, so it archives what earlier kube
  // suites left in namespaces still being deleted as well.
  const archived = async () => {
    const keys: string[] = [];
    for (const prefix of ['builds/', 'invocations/', 'sessions/']) keys.push(...(await bucketStore!.list(`${prefix}${project}/`)).map((e) => e.key));
    return keys;
  };

  it('moves finished builds and invocations to the bucket, answers from it, then forgets them', async () => {
    const build = await publish(client(), writeProject({ 'index.ts': FN }));
    assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
    await waitFor('the build to leave the API server', async () => ((await service!.cluster.resource(Kinds.Build).get(project, build.id)) ? undefined : true), 60_000);
    const buildAnswer = await client().request('GET', `/v1/functions/builds/${build.id}`);
    assert.equal(buildAnswer.status, 200);
    assert.equal(buildAnswer.body.status, 'COMPLETED');
    await waitFor('the build\'s ConfigMaps, pod and token Secret to be collected', async () => {
      const left = await service!.cluster.resource(Kinds.ConfigMap).list(project, { labelSelector: `browserfn.dev/build=${build.id},browserfn.dev/role!=function-version,browserfn.dev/role!=bundle` });
      const pods = await service!.cluster.resource(Kinds.Pod).list(project);
      const secrets = await service!.cluster.resource(Kinds.Secret).list(project);
      return left.items.length + pods.items.length + secrets.items.length === 0 ? true : undefined;
    }, 120_000, 250);
    const baseline = await counts();

    const run = await invokeAndWait(client(), build.builtFunctions![0].id, { params: { tag: 'kube' } });
    assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
    const paths = [`/v1/functions/invocations/${run.id}`, `/v1/functions/invocations/${run.id}/logs`, `/v1/sessions/${run.sessionId}`, `/v1/sessions/${run.sessionId}/logs`];
    const before = new Map<string, unknown>();
    for (const path of paths) before.set(path, (await client().request('GET', path)).body);

    await waitFor('the invocation to leave the API server', async () => ((await service!.cluster.resource(Kinds.Invocation).get(project, run.id)) ? undefined : true), 60_000);
    for (const path of paths) assert.deepEqual((await client().request('GET', path)).body, before.get(path), `${path} answers as before, from the bucket`);
    for (const path of paths) assert.equal((await client('other-key').request('GET', path)).status, 404, `another project: ${path}`);
    await waitFor('the namespace to hold what it held before the invocation', async () => ((await counts()) === baseline ? true : undefined), 120_000, 250);
    assert.deepEqual((await archived()).sort(), [`builds/${project}/${build.id}.json`, `invocations/${project}/${run.id}.json`, `sessions/${project}/${run.sessionId}.json`].sort());

    await waitFor('retention to pass', async () => ((await client().request('GET', paths[0])).status === 404 ? true : undefined), (RETENTION_SECONDS + 30) * 1000, 500);
    for (const path of paths) assert.equal((await client().request('GET', path)).status, 404, path);
    await waitFor('the sweep to empty the bucket', async () => ((await archived()).length === 0 ? true : undefined), 90_000, 500);
  });
});
