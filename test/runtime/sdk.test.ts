import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_WAITING_REQUESTS, RuntimeApiServer, type RuntimeReport } from '../../src/runtime/pod-agent/runtime-api-server.js';
import { createFunctionRuntime, type FunctionRuntimeSettings } from '../../src/sdk/function-runtime.js';
import { DuplicateFunctionNameError } from '../../src/sdk/registry.js';
import { InvalidFunctionNameError } from '../../src/sdk/function-name.js';
import type { FunctionContext } from '../../src/sdk/types.js';

describe('SDK defineFn', () => {
  let cwd: string;

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'browserfn-sdk-test-'));
  });

  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  function introspecting(): ReturnType<typeof createFunctionRuntime> {
    return createFunctionRuntime({ phase: 'introspect', runtimeApi: 'unused:0', cwd, onFatal: (error) => assert.fail(String(error)) });
  }

  it('refuses unusable names and duplicates', () => {
    const { defineFn } = introspecting();
    for (const name of ['', 'x'.repeat(129), 'a/b', '..', ' padded', 42]) {
      assert.throws(() => defineFn(name as string, async () => null), InvalidFunctionNameError, String(name));
    }
    defineFn('x'.repeat(128), async () => null);
    defineFn('scrape', async () => null);
    assert.throws(() => defineFn('scrape', async () => null), (error: unknown) => error instanceof DuplicateFunctionNameError && error.code === 'DUPLICATE_FUNCTION_NAME');
    assert.throws(() => defineFn('options', async () => null, { sessionConfig: [] as never }), /options\.sessionConfig must be an object/);
    // What a Zod schema is: an instance of its class, whose fields are the library's internals.
    class ZodObject {
      _def = { typeName: 'ZodObject' };
    }
    assert.throws(
      () => defineFn('zod', async () => null, { parametersSchema: new ZodObject() as never }),
      /defineFn\("zod"\): options\.parametersSchema must be a plain JSON object, not a ZodObject instance: pass a JSON Schema \(for Zod, z\.toJSONSchema\(schema\)\)/,
    );
  });

  it('writes one manifest per Function when introspecting, replacing stale ones', () => {
    const dir = join(cwd, '.browserbase', 'functions', 'manifests');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'stale.json'), '{}');
    const { defineFn } = introspecting();
    defineFn('with-config', async () => null, { sessionConfig: { proxies: true }, parametersSchema: { type: 'object' } });
    defineFn('plain', async () => null);
    assert.deepEqual(readdirSync(dir).sort(), ['plain.json', 'with-config.json']);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'with-config.json'), 'utf8')), {
      name: 'with-config',
      config: { sessionConfig: { proxies: true }, parametersSchema: { type: 'object' } },
    });
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'plain.json'), 'utf8')), { name: 'plain', config: {} });
  });

  describe('runtime phase against the pod agent runtime API', () => {
    async function runOnce(
      define: (defineFn: ReturnType<typeof createFunctionRuntime>['defineFn'], runtimeApi: string) => void | Promise<void>,
      functionName: string,
      params: Record<string, unknown> = {},
    ): Promise<RuntimeReport> {
      let resolveReport!: (report: RuntimeReport) => void;
      const reported = new Promise<RuntimeReport>((resolve) => (resolveReport = resolve));
      const api = new RuntimeApiServer();
      const runtimeApi = await api.listen();
      api.serve(
        {
          firstInvocation: async () => ({
            requestId: 'req-1',
            deadlineMs: Date.now() + 10_000,
            event: {
              functionName,
              params,
              context: { session: { id: 'sess-1', connectUrl: 'ws://127.0.0.1:1/devtools/browser/x' }, invocation: { id: 'inv-1', region: 'us-west-2' }, secrets: { KEY: 'value' } },
            },
          }),
          onPoll: () => undefined,
          onReport: resolveReport,
        },
        1024 * 1024,
      );
      const settings: FunctionRuntimeSettings = { phase: 'runtime', runtimeApi, cwd, onFatal: () => undefined };
      try {
        await define(createFunctionRuntime(settings).defineFn, runtimeApi);
        return await reported;
      } finally {
        await api.close();
      }
    }

    it('runs the named handler with ctx and params and posts its JSON result', async () => {
      let seen: { ctx: FunctionContext; params: unknown } | undefined;
      const report = await runOnce(
        (defineFn) => {
          defineFn('other', async () => 'wrong');
          defineFn('target', async (ctx, params) => {
            seen = { ctx, params };
            return { ok: true, list: [1, 2] };
          });
        },
        'target',
        { q: 'x' },
      );
      assert.deepEqual(report, { kind: 'response', body: '{"ok":true,"list":[1,2]}' });
      assert.deepEqual(seen, {
        ctx: { session: { id: 'sess-1', connectUrl: 'ws://127.0.0.1:1/devtools/browser/x' }, secrets: { KEY: 'value' }, invocation: { id: 'inv-1', region: 'us-west-2' } },
        params: { q: 'x' },
      });
    });

    it('answers a poll sent before the agent serves the runtime API once it does (the code loader starts before the agent has loaded)', async () => {
      const api = new RuntimeApiServer();
      const runtimeApi = await api.listen();
      try {
        const answered = new Promise<{ status?: number; requestId: unknown; body: string }>((resolve, reject) => {
          const request = get(`http://${runtimeApi}/2018-06-01/runtime/invocation/next`, (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode, requestId: response.headers['lambda-runtime-aws-request-id'], body }));
          });
          request.on('error', reject);
        });
        while (api.waitingRequests === 0) await new Promise((resolve) => setImmediate(resolve));
        let polls = 0;
        api.serve({ firstInvocation: async () => ({ requestId: 'req-early', deadlineMs: Date.now() + 10_000, event: { early: true } }), onPoll: () => polls++, onReport: () => undefined }, 1024);
        assert.deepEqual(await answered, { status: 200, requestId: 'req-early', body: '{"early":true}' });
        assert.equal(polls, 1);
      } finally {
        await api.close();
      }
    });

    it('refuses requests past the few it holds before it serves, and still answers the poll it held', async () => {
      const api = new RuntimeApiServer();
      const runtimeApi = await api.listen();
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      const send = (path: string) =>
        new Promise<{ status?: number; body: string }>((resolve, reject) => {
          const request = get({ agent, host: runtimeApi.split(':')[0], port: Number(runtimeApi.split(':')[1]), path }, (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode, body }));
          });
          request.on('error', reject);
        });
      try {
        const poll = send('/2018-06-01/runtime/invocation/next');
        while (api.waitingRequests === 0) await new Promise((resolve) => setImmediate(resolve));
        const held = Array.from({ length: MAX_WAITING_REQUESTS - 1 }, () => send('/2018-06-01/runtime/no-such-route'));
        while (api.waitingRequests < MAX_WAITING_REQUESTS) await new Promise((resolve) => setImmediate(resolve));
        const refused = await send('/2018-06-01/runtime/no-such-route');
        assert.equal(refused.status, 429, refused.body);
        assert.equal((JSON.parse(refused.body) as { errorType: string }).errorType, 'TooManyRequests');
        api.serve({ firstInvocation: async () => ({ requestId: 'req-1', deadlineMs: Date.now() + 10_000, event: {} }), onPoll: () => undefined, onReport: () => undefined }, 1024);
        assert.equal((await poll).status, 200);
        assert.deepEqual(new Set((await Promise.all(held)).map((answer) => answer.status)), new Set([404]));
      } finally {
        agent.destroy();
        await api.close();
      }
    });

    it('posts an empty body when the handler returns undefined', async () => {
      assert.deepEqual(await runOnce((defineFn) => defineFn('nothing', async () => undefined), 'nothing'), { kind: 'response', body: '' });
    });

    it('posts a thrown error with one stackTrace element per stack line', async () => {
      const report = await runOnce(
        (defineFn) =>
          defineFn('fails', async () => {
            throw new RangeError('out of range');
          }),
        'fails',
      );
      assert.equal(report.kind, 'error');
      const body = JSON.parse((report as { body: string }).body) as { errorMessage: string; errorType: string; stackTrace: string[] };
      assert.equal(body.errorMessage, 'out of range');
      assert.equal(body.errorType, 'RangeError');
      assert.equal(body.stackTrace[0], 'RangeError: out of range');
      assert.ok(body.stackTrace.length > 1 && body.stackTrace.slice(1).every((line) => line.trimStart().startsWith('at ')));
    });

    it("talks to the runtime API without fetch's client, which Node compiles on a process's first request (about 50 ms of CPU in a cold pod)", async () => {
      const runtimeUrl = new URL('../../src/sdk/function-runtime.js', import.meta.url).href;
      let child: ChildProcess | undefined;
      const report = await runOnce((_defineFn, runtimeApi) => {
        // A process of its own, as a Function's: the test's process may have loaded undici already.
        const script = `
          const { createFunctionRuntime } = await import(${JSON.stringify(runtimeUrl)});
          const { defineFn } = createFunctionRuntime({ phase: 'runtime', runtimeApi: ${JSON.stringify(runtimeApi)}, cwd: process.cwd(), onFatal: (error) => { console.error(error); process.exit(1); } });
          defineFn('probe', async () => ({ undici: process.moduleLoadList.some((name) => name.includes('undici')) }));`;
        child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd, stdio: 'inherit' });
      }, 'probe');
      child?.kill();
      assert.deepEqual(report, { kind: 'response', body: '{"undici":false}' });
    });

    it('reports a result that cannot become JSON and an unknown function name as errors', async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const unserializable = await runOnce((defineFn) => defineFn('circular', async () => circular), 'circular');
      assert.match((unserializable as { body: string }).body, /"errorType":"ResultNotSerializable"/);
      const unknown = await runOnce((defineFn) => defineFn('known', async () => 1), 'unknown');
      assert.equal(unknown.kind, 'error');
      assert.match((unknown as { body: string }).body, /Function \\"unknown\\" is not defined in this bundle/);
    });
  });

  it('starts no invocation loop when introspecting', () => {
    const { defineFn } = introspecting();
    defineFn('quiet', async () => null);
    assert.ok(existsSync(join(cwd, '.browserbase', 'functions', 'manifests', 'quiet.json')));
  });
});
