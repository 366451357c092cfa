// Every route of the OpenAPI document, fuzzed with fast-check over its path parameters, query,
// headers and body: the answer is never a 5xx (fetch aside, whose 502/504 are documented upstream
// failures), every error is the spec's {statusCode, error, message} with a message, nothing echoes
// a key or a stack, and nothing is half-written: each stored object answers a 2xx create. Then
// project archives built from fuzzed entries: what the façade accepts, the build agent extracts
// with nothing leaving the project.
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ARCHIVE_LIMITS } from '../../src/build/build-limits.js';
import { extractProjectArchive } from '../../src/build/safe-extract.js';
import { Kinds } from '../../src/cluster/objects.js';
import { createBuild } from '../../src/functions/builds.js';
import { publishVersion } from '../../src/functions/versions.js';
import type { BuildObject } from '../../src/schemas/resources.js';
import { createSecret } from '../../src/secrets/store.js';
import { tarGz, type TarEntry } from '../build/project-archive.js';
import { startApiOnly, type ApiOnlyService } from '../support/api-only.js';

interface Operation {
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
}

const RUNS = 1000;

describe('attack: every route fuzzed', function () {
  this.timeout(300_000);
  let api: ApiOnlyService;
  let operations: Operation[];
  /** IDs that exist (in this project or the other one), so the fuzz reaches past the lookups. */
  let knownIds: string[];
  const created = { builds: 0, secrets: 0, invocations: 0 };
  const statuses = new Map<string, number>();

  before(async () => {
    api = await startApiOnly();
    const document = (await api.request('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown }>> };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()),
      })),
    );
    assert.ok(operations.length >= 20, `the OpenAPI document lists ${operations.length} operations`);

    // A Function with a version and a parameter schema, written through the publishing use cases
    // (no controller runs here, so its invocations stay PENDING and no pod starts).
    const build = await createBuild(api.service.cluster, 'default', { entrypoint: 'index.ts' }, tarGz([{ path: 'index.ts', content: 'export {};\n' }]));
    const fn = await publishVersion(api.service.cluster, build as BuildObject, {
      name: 'fuzzed',
      parametersSchema: { type: 'object', properties: { url: { type: 'string', pattern: '^https?://' }, n: { type: 'integer', maximum: 10 } }, required: ['url'], additionalProperties: false },
    }, `${build.metadata.name}-bundle`);
    const secret = await createSecret(api.service.cluster, 'default', 'FUZZ_SECRET', 'fuzz-secret-value');
    const otherSecret = await createSecret(api.service.cluster, 'other', 'OTHER', 'other-value');
    knownIds = [fn.id, fn.createdVersion, build.metadata.name, secret.id, otherSecret.id];
  });

  after(async () => {
    await api?.stop();
  });

  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.uuid(),
    fc.constantFrom('..', '%2e%2e%2f', '%00', 'a'.repeat(400), '-1', '0', '1e2', '0x10', '1.5', '99999999999999999999', 'null', '[]', '{}', '2026-11-23T00:00:00Z', 'not-a-date'),
  );
  const jsonBody = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record({ params: fc.jsonValue({ maxDepth: 3 }), sessionCreateParams: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] }),
    fc.record({ params: fc.record({ url: fc.oneof(fc.webUrl(), fc.string()), n: fc.oneof(fc.integer(), fc.string()) }, { requiredKeys: [] }) }),
    fc.record({ secretKey: text, keypairId: text, sealedSecretValue: text, encapsulatedKey: text, sealedValue: fc.oneof(text, fc.jsonValue({ maxDepth: 2 })) }, { requiredKeys: [] }),
    fc.record({ url: fc.oneof(fc.constantFrom('http://127.0.0.1:1/', 'file:///etc/passwd', 'http://169.254.169.254/', 'gopher://x'), fc.string()), format: fc.constantFrom('raw', 'markdown', 'json', 'xml'), schema: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] }),
    fc.integer({ min: 101, max: 400 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  );
  const request = fc.record({
    operation: fc.nat(),
    pathValues: fc.array(fc.oneof(text, fc.nat().map((i) => knownIds[i % knownIds.length])), { minLength: 2, maxLength: 2 }),
    query: fc.dictionary(fc.oneof(fc.constantFrom('offset', 'limit', 'startAt', 'endAt', 'cursor'), fc.string({ maxLength: 8 })), text, { maxKeys: 4 }),
    key: fc.oneof({ arbitrary: fc.constant('valid'), weight: 6 }, { arbitrary: fc.constantFrom('other', 'wrong', 'missing', 'alias'), weight: 4 }),
    contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'multipart/form-data', 'application/octet-stream', undefined),
    body: fc.oneof(jsonBody.map((b) => (typeof b === 'string' ? b : JSON.stringify(b))), fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1'))),
  });

  it(`answers ${RUNS} random requests with a 2xx or a well-formed 4xx, and stores only what a 2xx created`, async () => {
    const stored = { builds: await count(Kinds.Build), secrets: (await api.request('GET', '/v1/secrets?limit=1000')).body.data.length, invocations: await count(Kinds.Invocation) };
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const op = operations[r.operation % operations.length];
        let slot = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.pathValues[slot++ % r.pathValues.length]));
        const query = new URLSearchParams(Object.entries(r.query)).toString();
        const headers: Record<string, string> = {};
        if (r.key === 'valid') headers['x-svc-api-key'] = api.apiKey;
        if (r.key === 'alias') headers['x-bb-api-key'] = api.apiKey;
        if (r.key === 'other') headers['x-svc-api-key'] = api.otherApiKey;
        if (r.key === 'wrong') headers['x-svc-api-key'] = 'wrong-key';
        if (r.key === 'missing') headers['x-svc-api-key'] = '';
        if (op.hasBody && r.contentType) headers['content-type'] = r.contentType;
        const url = new URL(`${api.url}${path}${query ? `?${query}` : ''}`);
        // A path value of '..' stays as it is (encodeURIComponent leaves dots), and the URL drops it
        // with the segment before: the route that answers is the one of the resolved path
        // (DELETE /v1/functions/../secrets/{id} is DELETE /v1/secrets/{id}).
        const reached = url.pathname;
        const response = await fetch(url, { method: op.method, headers, body: op.hasBody ? r.body : undefined });
        const body = await response.text();
        const where = `${op.method} ${path}?${query} (${r.key} key, ${r.contentType}) → ${response.status} ${body.slice(0, 300)}`;

        statuses.set(`${op.method} ${op.path} ${response.status}`, (statuses.get(`${op.method} ${op.path} ${response.status}`) ?? 0) + 1);
        const upstreamFailure = op.path === '/v1/fetch' && (response.status === 502 || response.status === 504);
        assert.ok(response.status < 500 || upstreamFailure, where);
        assert.ok(!body.includes(api.apiKey) && !body.includes(api.otherApiKey), `a key is echoed: ${where}`);
        assert.ok(!/\n\s+at /.test(body), `a stack trace is echoed: ${where}`);
        assert.ok(!body.includes('fuzz-secret-value') && !body.includes('other-value'), `a secret value is echoed: ${where}`);
        if (response.status >= 400) {
          const error = JSON.parse(body) as { statusCode: number; error: string; message: string };
          assert.equal(error.statusCode, response.status, where);
          assert.equal(typeof error.error, 'string', where);
          assert.ok(typeof error.message === 'string' && error.message.length > 0, where);
        } else if (op.method === 'POST') {
          if (reached === '/v1/functions/builds') created.builds += 1;
          if (reached === '/v1/secrets' && ['valid', 'alias'].includes(r.key)) created.secrets += 1;
          if (reached.endsWith('/invoke')) created.invocations += 1;
        }
        if (op.method === 'DELETE' && response.status < 300 && /^\/v1\/secrets\/[^/]+$/.test(reached) && ['valid', 'alias'].includes(r.key)) created.secrets -= 1;
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    // The fuzz reached past authentication on every public operation (the pod routes take only a
    // pod token, which no fuzzed request has: test/attack/pod-tokens.test.ts covers them).
    for (const op of operations.filter((o) => !o.path.startsWith('/internal/'))) {
      const seen = [...statuses.keys()].filter((k) => k.startsWith(`${op.method} ${op.path} `)).map((k) => Number(k.split(' ').pop()));
      assert.ok(seen.some((status) => status !== 401), `${op.method} ${op.path} answered only ${seen.join(', ') || 'nothing'}`);
    }
    assert.ok([...statuses.keys()].some((k) => / 2\d\d$/.test(k)), 'some requests succeeded');
    assert.equal(await count(Kinds.Build), stored.builds + created.builds, 'every stored Build answers a 201');
    assert.equal((await api.request('GET', '/v1/secrets?limit=1000')).body.data.length, stored.secrets + created.secrets, 'every stored secret answers a 201');
    assert.equal(await count(Kinds.Invocation), stored.invocations + created.invocations, 'every stored Invocation answers a 202');
  });

  async function count(kind: (typeof Kinds)[keyof typeof Kinds]): Promise<number> {
    return (await api.service.cluster.resource(kind).list(undefined)).items.length;
  }
});

describe('attack: fuzzed project archives', function () {
  this.timeout(300_000);
  let api: ApiOnlyService;
  let scratch: string;

  before(async () => {
    api = await startApiOnly();
    scratch = mkdtempSync(join(tmpdir(), 'browserfn-archive-fuzz-'));
  });
  after(async () => {
    await api?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const segment = fc.constantFrom('a', 'b', '.', '..', '', 'node_modules', 'x y');
  const entryPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
  const entry = fc.record({
    path: fc.oneof(entryPath, entryPath.map((p) => `/${p}`)),
    type: fc.constantFrom('File', 'File', 'Directory', 'SymbolicLink', 'Link', 'FIFO'),
    linkpath: fc.oneof(entryPath, entryPath.map((p) => `/${p}`)),
    content: fc.string({ maxLength: 8 }),
  }) as fc.Arbitrary<TarEntry>;

  it('an archive the façade accepts extracts with nothing outside the project; a refused one leaves nothing stored', async () => {
    let accepted = 0;
    const refusals = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 6 }), async (entries) => {
        const archive = tarGz([{ path: 'index.ts', content: 'export {};\n' }, ...entries]);
        const before = await api.storedBuildObjects();
        const form = new FormData();
        form.append('metadata', JSON.stringify({ entrypoint: 'index.ts' }));
        form.append('archive', new Blob([new Uint8Array(archive)], { type: 'application/gzip' }), 'archive.tar.gz');
        const response = await api.request('POST', '/v1/functions/builds', form);
        const where = `${JSON.stringify(entries)} → ${response.status} ${JSON.stringify(response.body)}`;
        if (response.status !== 201) {
          assert.equal(response.status, 400, where);
          assert.match(response.body.message, /^Invalid project archive: /, where);
          assert.deepEqual(await api.storedBuildObjects(), before, where);
          const rule = String(response.body.message).replace(/"[^"]*"/g, '…');
          refusals.set(rule, (refusals.get(rule) ?? 0) + 1);
          return;
        }
        accepted += 1;
        // The build agent extracts what the façade accepted: everything must stay inside.
        const round = mkdtempSync(join(scratch, 'round-'));
        const target = join(round, 'project');
        await extractProjectArchive(archive, target, ARCHIVE_LIMITS);
        assert.deepEqual(readdirSync(round), ['project'], `something was written beside the project: ${where}`);
        for (const path of walk(target)) {
          const real = realpathOrUndefined(path);
          if (real) assert.ok(real === realpathSync(target) || real.startsWith(realpathSync(target) + '/'), `${path} leads to ${real}: ${where}`);
        }
      }),
      {
        numRuns: 300,
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
        // An ordinary project among the random ones: links that stay inside must be accepted.
        examples: [[[{ path: 'lib', type: 'Directory' }, { path: 'lib/a.ts', type: 'File', content: 'x' }, { path: 'alias', type: 'SymbolicLink', linkpath: 'lib/a.ts' }]]],
      },
    );
    assert.ok(accepted > 0, `some fuzzed archives were ordinary enough to accept; refusals: ${JSON.stringify([...refusals])}`);
  });
});

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    yield path;
    if (lstatSync(path).isDirectory()) yield* walk(path);
  }
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined; // a dangling link leads nowhere
  }
}
