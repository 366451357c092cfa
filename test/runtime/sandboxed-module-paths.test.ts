// A user process meets one instance of each runtime package, however it reaches it: Node's realpath
// returns a path unresolved when the process's last stat, anywhere, was of a pipe (one array holds
// every stat's result), so the pod's node_modules link must not need resolving. Run as the pod agent
// starts the code loader (startSandboxedProcess: Node's permission model, the console preload, the
// runtime modules linked beside the code), with a bundle that stats its channel pipe before it imports.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { podLayout } from '../../src/runtime/sandbox/pod-layout.js';
import { defaultRuntimeModulesDir, linkRuntimeModules } from '../../src/runtime/sandbox/runtime-modules.js';
import { startSandboxedProcess } from '../../src/runtime/sandbox/sandboxed-process.js';
import { RUNTIME_PACKAGES } from '../../src/schemas/runtime-packages.js';

const runtimeFile = (file: string) => fileURLToPath(new URL(`../../src/runtime/${file}`, import.meta.url));
const CODE_LOADER = runtimeFile('sandbox/code-loader.js');
const LOADER_SUPPORT = ['sandbox/devtools-protocol-cache.js', 'sandbox/page-driver-warm-up.js', 'agent-common/http-call.js'].map(runtimeFile);

// A callback fstat fills Node's shared stat array; on the channel fd (a pipe) it leaves a pipe's
// mode there, which is what made realpath stop early. The import comes in the callback's wake.
const BUNDLE = `import { fstat } from 'node:fs';
import { createRequire } from 'node:module';
await new Promise((resolve) => fstat(3, resolve));
const { default: CDP } = await import('chrome-remote-interface');
const instances = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('/chrome-remote-interface/index.js'));
console.log(JSON.stringify({ type: typeof CDP, instances }));
`;

describe('module paths in a user process', () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), 'browserfn-module-paths-'))));
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const member of [false, true]) {
    it(`gives a bundle the instance the code loader loaded, after a stat of a pipe (${member ? 'pool member' : 'cold pod'})`, async () => {
      const podDir = join(root, member ? 'member' : 'cold');
      const layout = podLayout(podDir);
      for (const dir of [layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir]) mkdirSync(dir, { recursive: true });
      const bundle = join(layout.codeDir, 'main.mjs');
      writeFileSync(bundle, BUNDLE);
      const runtimeModules = linkRuntimeModules(podDir, defaultRuntimeModulesDir());
      const user = startSandboxedProcess({
        script: CODE_LOADER,
        args: [layout.codeDir, RUNTIME_PACKAGES.join(','), ...(member ? ['chrome-remote-interface'] : [])],
        cwd: layout.appDir,
        writable: [layout.appDir, layout.homeDir, layout.tmpDir],
        homeDir: layout.homeDir,
        tmpDir: layout.tmpDir,
        readable: [...LOADER_SUPPORT, layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir, ...runtimeModules],
        env: {},
        agentEnv: process.env,
        stdin: true,
      });
      user.streams.stdout?.resume();
      // console.log comes as a record on the channel (the console preload).
      const [channel, stderr] = [text(user.streams.channel!), text(user.streams.stderr!)];
      // The browser's address is never answered: nothing here connects.
      const instructions: LoaderInstruction[] = [{ bundle }, { browser: 'ws://127.0.0.1:9/devtools/browser/none' }];
      for (const instruction of instructions) user.stdin!.write(`${JSON.stringify(instruction)}\n`);
      user.stdin!.end();
      const status = await user.exited;
      assert.equal(status.code, 0, await stderr);
      const records = (await channel).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; message?: string });
      const printed = records.find((record) => record.type === 'console');
      assert.ok(printed?.message, `the bundle printed nothing: ${await channel}`);
      const { type, instances } = JSON.parse(printed.message) as { type: string; instances: string[] };
      assert.equal(type, 'function');
      assert.equal(instances.length, 1, `one chrome-remote-interface, not ${JSON.stringify(instances)}`);
    });
  }
});
