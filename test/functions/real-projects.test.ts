// The corpus: real-world projects from the npm registry, unmodified, each with its package.json and
// a lockfile made by `npm install --package-lock-only`. Each is published with both CLIs — ours
// (`browserfn publish`) and the official `bb publish` of @browserbasehq/sdk-functions, unmodified,
// pointed at us through its API URL and key — and invoked after each publish, its results checked,
// on real Chromium with pages served on 127.0.0.1. Builds install from one shared npm cache
// (offline once warm), with install scripts off, one after the other on one service.
// The corpus runs on both backends: embedded, and the test kube-apiserver with the node agent
// (skipped, saying why, only when that control plane cannot exist on the machine). The second
// publish, with `bb`, runs on the embedded backend only: what differs between the CLIs is the
// client side, which the backend does not change, and it would add minutes of builds to CI.
// BROWSERFN_CORPUS_BACKEND=embedded|kube runs one of them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { startService, type RunningService } from '../../src/server/service.js';
import { controlPlaneUnavailable, ensureControlPlane, kubectl } from '../support/controlplane.js';
import { startPageServer, type PageServer } from '../support/http-fixtures.js';
import { reportLeadershipLost } from '../support/kube-project.js';
import { assertNoProcessesUnder } from '../support/processes.js';
import { invokeAndWait } from '../support/publish.js';
import { startTestService, type TestService } from '../support/service.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = (name: string) => join(REPO, 'test/fixtures/projects', name);
const BROWSERFN_CLI = join(REPO, 'dist/src/cli/main.js');
const BB_CLI = join(REPO, 'node_modules/@browserbasehq/sdk-functions/dist/cli.js');
const NPM_CACHE = join(tmpdir(), 'browserfn-test-npm-cache');
type Backend = 'embedded' | 'kube';
const BACKENDS: Backend[] = process.env.BROWSERFN_CORPUS_BACKEND ? [process.env.BROWSERFN_CORPUS_BACKEND as Backend] : ['embedded', 'kube'];

interface CorpusProject {
  fixture: string;
  entry: string;
  functionName: string;
  params: (pageUrl: string) => Record<string, unknown>;
  results: unknown;
}

const PAGE_TITLE = 'Corpus page';
const CORPUS: CorpusProject[] = [
  { fixture: 'real-stagehand', entry: 'index.mts', functionName: 'stagehand-title', params: (url) => ({ url }), results: { title: PAGE_TITLE } },
  {
    fixture: 'real-openai',
    entry: 'index.mts',
    functionName: 'openai-offline',
    params: () => ({ city: 'Nantes' }),
    results: { baseURL: 'http://127.0.0.1:9/v1', formatName: 'answer', required: ['city', 'population'], parsed: { city: 'Nantes', population: 522_000 } },
  },
  { fixture: 'real-cheerio', entry: 'index.ts', functionName: 'cheerio-headings', params: (url) => ({ url }), results: { title: PAGE_TITLE, headings: ['Hello corpus'], due: '2025-02-02' } },
  { fixture: 'real-puppeteer', entry: 'index.ts', functionName: 'puppeteer-title', params: (url) => ({ url }), results: { title: PAGE_TITLE } },
  { fixture: 'real-playwright', entry: 'index.mts', functionName: 'playwright-title', params: (url) => ({ url }), results: { title: PAGE_TITLE } },
  { fixture: 'real-commonjs', entry: 'index.js', functionName: 'commonjs-shout', params: () => ({ text: 'hi' }), results: { text: 'HI!', timeout: 120_000, moduleType: 'object' } },
  { fixture: 'real-tsconfig-paths', entry: 'src/index.ts', functionName: 'paths-greet', params: () => ({ name: 'Ada' }), results: { greeting: 'Hello, Ada' } },
  { fixture: 'real-workspace', entry: 'packages/fn/index.ts', functionName: 'workspace-stamp', params: () => ({}), results: { stamp: 'fn@2025-06-01', seconds: 60 } },
  { fixture: 'real-json-asset', entry: 'index.ts', functionName: 'json-asset', params: () => ({ city: 'Nantes' }), results: { population: 320_732, count: 2 } },
];

function run(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A service on the chosen backend; for kube, the façade, controllers and node agent in one process. */
async function startCorpusService(backend: Backend): Promise<{ client: TestService; apiKey: string; project: string; stop(): Promise<void> }> {
  if (backend === 'embedded') {
    // Real projects run on warm pool members, as they would by default.
    const svc = await startTestService({ BROWSERFN_WARM_POOL_SIZE: '2' });
    return { client: svc, apiKey: svc.apiKey, project: 'default', stop: () => svc.stop() };
  }
  const plane = await ensureControlPlane();
  if (plane.state !== 'ready') throw new Error(`the kube corpus needs the test control plane: ${plane.reason}`);
  const project = `corpus-${randomBytes(3).toString('hex')}`;
  const nodeName = `node-${project}`;
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-corpus-kube-'));
  const ns = await kubectl(['create', 'namespace', project]);
  assert.equal(ns.code, 0, ns.stderr);
  const env = { BROWSERFN_API_KEYS: `${apiKey}:${project}`, BROWSERFN_POD_TOKEN_SECRET: randomBytes(24).toString('hex'), BROWSERFN_NPM_CACHE: NPM_CACHE, BROWSERFN_SANDBOX_NETWORK: 'host' };
  const service: RunningService = await startService(
    loadSettings({ dataDir, port: 0, host: '127.0.0.1', env }),
    { backend: 'kube', kubeconfigPath: plane.kubeconfigPath, api: true, controllers: true, nodeAgent: true, nodeName, podNodeName: nodeName, leaseNamespace: project, onLeadershipLost: reportLeadershipLost, image: 'browserfn:test' },
    createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  );
  const client = {
    url: service.url,
    apiKey,
    async request(method: string, path: string, body?: unknown) {
      const init: RequestInit = { method, headers: { 'x-svc-api-key': apiKey } };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const response = await fetch(service.url + path, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  } as unknown as TestService;
  return {
    client,
    apiKey,
    project,
    async stop() {
      await service.stop();
      await kubectl(['delete', 'namespace', project, '--wait=false']);
      await kubectl(['delete', 'node', nodeName, '--wait=false']);
      try {
        await assertNoProcessesUnder(dataDir, 'the service stopped');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

for (const backend of BACKENDS) {
  const unavailable = backend === 'kube' ? controlPlaneUnavailable() : undefined;
  const describeCorpus = unavailable ? (title: string, fn: (this: Mocha.Suite) => void) => describe.skip(`${title} — SKIPPED: ${unavailable}`, fn) : describe;
  const withBb = backend === 'embedded';
  describeCorpus(`real-world project corpus, published with ${withBb ? 'both CLIs' : 'browserfn publish'} (${backend})`, function () {
    this.timeout(600_000);
    let svc: Awaited<ReturnType<typeof startCorpusService>>;
    let pages: PageServer;
    let suiteStarted: number;
    const figures: string[] = [];

    before(async () => {
      suiteStarted = performance.now();
      svc = await startCorpusService(backend);
      pages = await startPageServer({ '/corpus': `<!doctype html><html><head><title>${PAGE_TITLE}</title></head><body><h1>Hello corpus</h1></body></html>` });
    });
    after(async () => {
      await pages?.close();
      await svc?.stop();
      console.log(`\n    corpus (${backend}): ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s in all\n${figures.map((line) => `      ${line}`).join('\n')}\n`);
    });

    async function buildOf(buildId: string) {
      const { body } = await svc.client.request<{ status: string; builtFunctions?: { id: string; name: string }[]; cause?: unknown }>('GET', `/v1/functions/builds/${buildId}`);
      return body;
    }

    async function invokeAndCheck(project: CorpusProject, functionId: string): Promise<void> {
      const run = await invokeAndWait(svc.client, functionId, { params: project.params(`${pages.url}/corpus`) });
      assert.equal(run.status, 'COMPLETED', JSON.stringify(run.cause));
      assert.deepEqual(run.results, project.results);
    }

    for (const project of CORPUS) {
      it(`${project.fixture}: browserfn publish${withBb ? ', then bb publish; each version' : ''} invoked`, async () => {
        const root = fixture(project.fixture);
        const ours = await run([BROWSERFN_CLI, 'publish', join(root, project.entry), '--poll-ms', '200'], REPO, { BROWSERFN_API_URL: svc.client.url, BROWSERFN_API_KEY: svc.apiKey });
        assert.equal(ours.code, 0, `${ours.stdout}\n${ours.stderr}`);
        const artifact = /^Artifact: ([\d.]+) MiB tar\.gz \((\d+) files, ([\d.]+) MiB unpacked\)$/m.exec(ours.stdout);
        const steps = /^Steps: extract [\d.]+ s, install [\d.]+ s, bundle [\d.]+ s, introspect [\d.]+ s, upload [\d.]+ s, store [\d.]+ s$/m.exec(ours.stdout);
        assert.ok(artifact && steps, `the CLI shows the artifact size and each step's time:\n${ours.stdout}`);
        figures.push(`${project.fixture}: ${artifact[0].slice('Artifact: '.length)}; ${steps[0]}`);
        const fnId = new RegExp(`^\\s+${project.functionName}\\s+id=(\\S+)`, 'm').exec(ours.stdout)?.[1];
        assert.ok(fnId, ours.stdout);
        await invokeAndCheck(project, fnId);
        if (!withBb) return;

        const bb = await run([BB_CLI, 'publish', project.entry, '--api-url', svc.client.url], root, { BROWSERBASE_API_KEY: svc.apiKey, BROWSERBASE_PROJECT_ID: svc.project });
        const buildId = /Build ID: (\S+)/.exec(bb.stdout)?.[1];
        assert.ok(bb.code === 0 && buildId, `${bb.stdout}\n${bb.stderr}`);
        const build = await buildOf(buildId);
        assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
        assert.equal(build.builtFunctions?.find((fn) => fn.name === project.functionName)?.id, fnId, 'bb publish updated the same Function');
        await invokeAndCheck(project, fnId);
      });
    }
  });
}
