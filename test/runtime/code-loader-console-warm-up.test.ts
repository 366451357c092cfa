// A pool member's code loader formats a console line once before it is ready, sending nothing, so
// that the invocation's first console calls (@browserbasehq/sdk-functions logs before and after the
// handler) find Node's formatting compiled. Run as the agent runs the loader, console on its
// channel (support/code-loader-run.ts), with a bundle that reports how much bytecode V8 made for
// its first console call.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { runCodeLoader, useFakeBrowsers, type LoaderRun } from './support/code-loader-run.js';

const BUNDLE = `import { getHeapCodeStatistics } from 'node:v8';
const before = getHeapCodeStatistics().bytecode_and_metadata_size;
console.log('handlerResult', { title: 'Example Domain', links: [1, 'two'] });
const compiled = getHeapCodeStatistics().bytecode_and_metadata_size - before;
console.log(JSON.stringify({ compiled }));
`;

describe("code loader: a pool member warms up console's formatting", function () {
  this.timeout(60_000);
  const fakes = useFakeBrowsers('browserfn-console-warm-up-');

  function run(member: boolean): Promise<LoaderRun> {
    const instructions = (codeDir: string): LoaderInstruction[] => [{ browser: fakes.browser.wsEndpoint }, member ? { bundle: join(codeDir, 'main.mjs'), ahead: true } : { bundle: join(codeDir, 'main.mjs') }];
    return runCodeLoader({ podDir: fakes.nextPodDir(), bundle: BUNDLE, instructions, preload: member ? [] : undefined, tellEarly: !member, watched: fakes.browser });
  }

  it("a member's first console call compiles a fraction of what a cold pod's does, and the warm-up sent nothing", async () => {
    const member = await run(true);
    const cold = await run(false);
    const compiled = (printed: unknown) => (printed as { compiled: number }).compiled;
    assert.ok(compiled(cold.printed) > 5_000, `a cold pod's first console call compiled ${compiled(cold.printed)} bytes of bytecode`);
    assert.ok(compiled(member.printed) * 4 < compiled(cold.printed), `a member's compiled ${compiled(member.printed)} bytes, a cold pod's ${compiled(cold.printed)}`);
    assert.deepEqual(member.consoleLines.slice(0, -1), ["handlerResult { title: 'Example Domain', links: [ 1, 'two' ] }"]);
  });
});
