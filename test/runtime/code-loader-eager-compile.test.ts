// A pool member's code loader compiles a bundle given ahead whole as it imports it, so the
// invocation's first calls compile nothing; a bundle given with the invocation, and one larger
// than the cap, compile as they run. Run as the agent runs the loader (support/code-loader-run.ts),
// with a bundle that reports how much bytecode V8 made when its functions were first called.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { runCodeLoader, useFakeBrowsers } from './support/code-loader-run.js';

const FUNCTIONS = 300;
const functions = Array.from({ length: FUNCTIONS }, (_, i) => `function f${i}(x) { let s = 0; for (let j = 0; j < x; j += 1) s += (j * ${i}) % 7; return s; }`);
const BUNDLE = `import { getHeapCodeStatistics } from 'node:v8';
${functions.join('\n')}
const all = [${functions.map((_, i) => `f${i}`).join(', ')}];
const before = getHeapCodeStatistics().bytecode_and_metadata_size;
for (const f of all) f(3);
console.log(JSON.stringify({ compiledOnFirstCalls: getHeapCodeStatistics().bytecode_and_metadata_size - before }));
`;

describe('code loader: a bundle given ahead is compiled as it is imported', function () {
  this.timeout(60_000);
  const fakes = useFakeBrowsers('browserfn-eager-');

  async function bytecodeOfFirstCalls(bundle: string, ahead: boolean): Promise<number> {
    const instructions = (codeDir: string): LoaderInstruction[] => [{ browser: fakes.browser.wsEndpoint }, ahead ? { bundle: join(codeDir, 'main.mjs'), ahead } : { bundle: join(codeDir, 'main.mjs') }];
    const { printed } = await runCodeLoader({ podDir: fakes.nextPodDir(), bundle, instructions, preload: [], watched: fakes.browser });
    return (printed as { compiledOnFirstCalls: number }).compiledOnFirstCalls;
  }

  it("a member's bundle given ahead: its functions' first calls compile nothing", async () => {
    // Nothing, where a lazily compiled bundle makes 200 bytes a function (a GC meanwhile may only take some away).
    const compiled = await bytecodeOfFirstCalls(BUNDLE, true);
    assert.ok(compiled < FUNCTIONS * 10, `the first calls compiled ${compiled} bytes of bytecode`);
  });

  it("a bundle given with the invocation compiles each function at its first call (its start is on the invocation's path)", async () => {
    assert.ok((await bytecodeOfFirstCalls(BUNDLE, false)) >= FUNCTIONS * 100);
  });

  it('a bundle larger than 4 MiB, given ahead, compiles as it runs too', async () => {
    const padded = `${BUNDLE}/*${' '.repeat(4 * 1024 * 1024)}*/\n`;
    assert.ok((await bytecodeOfFirstCalls(padded, true)) >= FUNCTIONS * 100);
  });
});
