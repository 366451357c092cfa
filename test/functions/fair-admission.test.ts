// Fair admission with real pods: one project's burst of 20 does not hold back two projects that
// invoke right after it. With 2 slots, first come first served would start all 20 of the burst
// first; taking projects in turn starts the others' 5 + 5 among the burst's first few. Every
// handler runs exactly once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from '../support/service.js';
import { writeProject } from '../support/projects.js';
import { publish, waitInvocation } from '../support/publish.js';

const FN = `
import { defineFn } from 'browserfn';
defineFn('report-start', async (ctx, params: { url: string; tag: string }) => {
  await fetch(params.url + '/' + params.tag);
  return { tag: params.tag };
});
`;

const KEYS = { alpha: 'key-alpha', beta: 'key-beta', gamma: 'key-gamma' } as const;
type Project = keyof typeof KEYS;

describe('fair admission across projects (embedded, real pods)', function () {
  this.timeout(600_000);
  let svc: TestService;
  let recorder: Server;
  let recorderUrl: string;
  const arrivals: string[] = [];

  before(async () => {
    recorder = createServer((req, res) => {
      arrivals.push(decodeURIComponent(req.url!.slice(1)));
      res.end('ok');
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
    svc = await startTestService({
      BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '2',
      BROWSERFN_API_KEYS: Object.entries(KEYS).map(([project, key]) => `${key}:${project}`).join(','),
    });
  });
  after(async () => {
    await svc?.stop();
    await new Promise((resolve) => recorder?.close(resolve));
  });

  it('starts the later projects among the burst, and runs each handler once', async () => {
    const functionIds = {} as Record<Project, string>;
    for (const project of Object.keys(KEYS) as Project[]) {
      const build = await publish(svc, writeProject({ 'index.ts': FN }), 'index.ts', { 'x-svc-api-key': KEYS[project] });
      assert.equal(build.status, 'COMPLETED', JSON.stringify(build.cause));
      functionIds[project] = build.builtFunctions![0].id;
    }
    const invoke = async (project: Project, i: number) => {
      const res = await svc.request('POST', `/v1/functions/${functionIds[project]}/invoke`, { params: { url: recorderUrl, tag: `${project}-${i}` } }, { 'x-svc-api-key': KEYS[project] });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return { project, id: res.body.id as string };
    };
    const submitted = [];
    for (let i = 0; i < 20; i += 1) submitted.push(await invoke('alpha', i));
    for (let i = 0; i < 5; i += 1) submitted.push(await invoke('beta', i), await invoke('gamma', i));

    const results = await Promise.all(submitted.map(({ project, id }) => waitInvocation(svc, id, 540_000, { 'x-svc-api-key': KEYS[project] })));
    assert.deepEqual(results.map((r) => r.status), results.map(() => 'COMPLETED'));
    assert.equal(arrivals.length, 30, 'each handler ran once');
    assert.equal(new Set(arrivals).size, 30);

    const lastOther = Math.max(...arrivals.map((tag, index) => (tag.startsWith('alpha') ? -1 : index)));
    const burstBefore = arrivals.slice(0, lastOther).filter((tag) => tag.startsWith('alpha')).length;
    // In turn: about one of the burst per two others once all three wait, plus the first few that
    // started before the others arrived. First come first served would make this 20.
    assert.ok(burstBefore <= 10, `${burstBefore} of the burst started before the last of the others: ${arrivals.join(' ')}`);
  });
});
