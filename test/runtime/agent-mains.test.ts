// Which script a `browserfn pod-agent` pod runs: the bundle `make build` made, only while it is
// newer than every file it was made from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentMains, POD_AGENT_BUNDLE_FILE, POD_AGENT_BUNDLE_INPUTS_FILE } from '../../src/runtime/node-agent/agent-mains.js';

describe('agent mains', () => {
  let root: string;
  let main: string;
  let bundle: string;
  const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-mains-'));
    mkdirSync(join(root, 'pod-agent'));
    mkdirSync(join(root, 'sandbox'));
    main = join(root, 'pod-agent', 'main.js');
    bundle = join(root, 'pod-agent', POD_AGENT_BUNDLE_FILE);
    for (const file of [main, join(root, 'sandbox', 'code-loader.js'), bundle]) writeFileSync(file, '');
    writeFileSync(join(root, 'pod-agent', POD_AGENT_BUNDLE_INPUTS_FILE), JSON.stringify(['main.js', '../sandbox/code-loader.js']));
    at(main, 1000);
    at(join(root, 'sandbox', 'code-loader.js'), 1000);
    at(bundle, 2000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs the bundle while none of its inputs is newer (an input as old as the bundle counts as built into it)', () => {
    assert.equal(agentMains(main)['pod-agent'], bundle);
    at(main, 2000);
    assert.equal(agentMains(main)['pod-agent'], bundle);
  });

  it('runs the modules once an input changed after the bundle was made (tsc ran, the bundler did not)', () => {
    at(join(root, 'sandbox', 'code-loader.js'), 3000);
    assert.equal(agentMains(main)['pod-agent'], main);
  });

  it('runs the modules when the bundle, its list of inputs or one of the inputs is missing, or the list is not one', () => {
    rmSync(join(root, 'sandbox', 'code-loader.js'));
    assert.equal(agentMains(main)['pod-agent'], main, 'an input gone');
    writeFileSync(join(root, 'pod-agent', POD_AGENT_BUNDLE_INPUTS_FILE), '{"main.js": true}');
    assert.equal(agentMains(main)['pod-agent'], main, 'not a list');
    writeFileSync(join(root, 'pod-agent', POD_AGENT_BUNDLE_INPUTS_FILE), '[]');
    assert.equal(agentMains(main)['pod-agent'], main, 'an empty list');
    rmSync(join(root, 'pod-agent', POD_AGENT_BUNDLE_INPUTS_FILE));
    assert.equal(agentMains(main)['pod-agent'], main, 'no list');
    rmSync(bundle);
    assert.equal(agentMains(main)['pod-agent'], main, 'no bundle');
  });

  it('after `make build`, pods run the bundle of this build', () => {
    const podAgent = agentMains()['pod-agent'];
    assert.ok(podAgent.endsWith(`/runtime/pod-agent/${POD_AGENT_BUNDLE_FILE}`), `pods run ${podAgent}: the pod agent's bundle is missing or older than its sources; run \`make build\``);
    assert.match(agentMains()['build-agent'], /\/build\/main\.js$/);
  });

  it('`browserfn pod-agent` (how a kubelet starts the agent) runs that script without the command-line program: without its settings it says which and exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-command-'));
    try {
      // Lists every ES module the process resolves.
      const loadedList = join(dir, 'loaded');
      const hooks = `import { appendFileSync } from 'node:fs';
        export async function resolve(specifier, context, next) {
          const resolved = await next(specifier, context);
          appendFileSync(${JSON.stringify(loadedList)}, resolved.url + '\\n');
          return resolved;
        }`;
      const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
      const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
      const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, cli, 'pod-agent'], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
      assert.equal(run.status, 2, run.stderr);
      const line = JSON.parse(run.stdout.trim().split('\n')[0]) as { component?: string; msg?: string };
      assert.equal(line.component, 'pod-agent');
      assert.match(line.msg ?? '', /BROWSERFN_CONTROL_URL.*BROWSERFN_POD_DIR/);
      const loaded = readFileSync(loadedList, 'utf8').trim().split('\n');
      assert.ok(loaded.includes(pathToFileURL(agentMains()['pod-agent']).href), `the pod agent's script was not loaded: ${loaded.join(', ')}`);
      assert.deepEqual(loaded.filter((url) => /\/cli\/program\.js$|\/commander\//.test(url)), [], 'the command-line program was loaded');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a pool member's agent compiles all of its code as it loads it, a cold pod's as it goes (its start is on the invocation's path)", () => {
    const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
    // V8's compiled code of the process as it exits (without its settings, right after loading).
    const report = `import { getHeapCodeStatistics } from 'node:v8'; process.on('exit', () => process.stderr.write('bytecode ' + getHeapCodeStatistics().bytecode_and_metadata_size + '\\n'));`;
    const bytecodeOf = (poolMember: boolean): number => {
      const env = { PATH: process.env.PATH, ...(poolMember ? { BROWSERFN_POOL_MEMBER: '1' } : {}) };
      const run = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(report)}`, cli, 'pod-agent'], { env, encoding: 'utf8' });
      assert.equal(run.status, 2, run.stderr);
      const bytes = Number(/bytecode (\d+)/.exec(run.stderr)?.[1]);
      assert.ok(bytes > 0, run.stderr);
      return bytes;
    };
    const cold = bytecodeOf(false);
    const member = bytecodeOf(true);
    assert.ok(member > 2 * cold, `a pool member's agent holds ${member} bytes of bytecode, a cold pod's ${cold}: the member's code was not compiled as it loaded`);
  });

  it('other commands run the command-line program', () => {
    const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
    const run = spawnSync(process.execPath, [cli, 'no-such-command'], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /unknown command 'no-such-command'/);
  });
});
