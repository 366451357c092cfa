// Time from invoke to the handler's first line for artifacts of about 1 MB and 20 MB: the first
// invocation (the node agent fetches the chunks, checks the sha256 and caches the file) and the next
// one (handed over from the node cache), beside a tiny artifact measured in the same run. The
// handler returns Date.now() as it starts; the same clock stamped the invoke.
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../test/support/service.js';
import { writeProject } from '../test/support/projects.js';
import { publish, invokeAndWait } from '../test/support/publish.js';
import { percentile } from './invocations.js';

const SAMPLES = Number(process.env.BENCH_ARTIFACT_SAMPLES ?? 3);

const FN = `
import { defineFn } from 'browserfn';
defineFn('artifact-start', async () => Date.now());
`;

async function handlerStartMs(svc: TestService, fnId: string): Promise<number> {
  const invoked = Date.now();
  const result = await invokeAndWait(svc, fnId, {});
  if (result.status !== 'COMPLETED' || typeof result.results !== 'number') throw new Error(`bench invocation failed: ${JSON.stringify(result)}`);
  return result.results - invoked;
}

export async function runArtifactStartBench(): Promise<void> {
  const svc = await startTestService({ BROWSERFN_MAX_CONCURRENT_INVOCATIONS: '1' });
  try {
    const rows: [string, number[], number[]][] = [];
    for (const [label, bytes] of [['tiny (baseline)', 0], ['1 MB', 1_000_000], ['20 MB', 20_000_000]] as const) {
      const first: number[] = [];
      const cached: number[] = [];
      let size = 0;
      for (let i = 0; i < SAMPLES; i += 1) {
        // Random, so every sample is an artifact of its own that no cache has seen.
        const build = await publish(svc, writeProject({ 'index.ts': FN, 'payload.bin': randomBytes(bytes).toString('latin1'), 'nonce.txt': randomBytes(8).toString('hex') }));
        if (build.status !== 'COMPLETED') throw new Error(`bench build failed: ${JSON.stringify(build.cause)}`);
        const fnId = build.builtFunctions![0].id;
        const logs = await svc.request('GET', `/v1/functions/builds/${build.id}/logs`);
        size = Number(/Stored the artifact: (\d+) bytes/.exec(JSON.stringify(logs.body))?.[1] ?? 0);
        first.push(await handlerStartMs(svc, fnId));
        cached.push(await handlerStartMs(svc, fnId));
      }
      rows.push([`${label}, ${(size / 1e6).toFixed(2)} MB tar.gz`, first, cached]);
    }
    console.log(`\n== Artifact start (${SAMPLES} artifacts each; invoke → handler start, same machine, same run) ==`);
    console.log('artifact'.padEnd(36) + 'first p50 ms'.padStart(14) + 'first max'.padStart(11) + 'cached p50 ms'.padStart(15) + 'cached max'.padStart(12));
    for (const [name, first, cached] of rows) {
      console.log(name.padEnd(36) + percentile(first, 50).toFixed(0).padStart(14) + Math.max(...first).toFixed(0).padStart(11) + percentile(cached, 50).toFixed(0).padStart(15) + Math.max(...cached).toFixed(0).padStart(12));
    }
  } finally {
    await svc.stop();
  }
}
