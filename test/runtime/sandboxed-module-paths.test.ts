// A user process meets one instance of each runtime package, however it reaches it: Node's realpath
// returns a path unresolved when the process's last stat, anywhere, was of a pipe (one array holds
// every stat's result), so the pod's node_modules link must not need resolving. Run as the pod agent
// starts the code loader (startSandboxedProcess: Node's permission model, the console preload, the
// runtime modules linked beside the code), with a bundle that stats its channel pipe before it imports.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import type { LoaderInstruction } from '../../src/runtime/sandbox/channel.js';
import { CODE_LOADER_PATH, CODE_LOADER_SUPPORT_PATHS } from '../../src/runtime/sandbox/code-loader-files.js';
import { podLayout } from '../../src/runtime/sandbox/pod-layout.js';
import { defaultRuntimeModulesDir, linkRuntimeModules } from '../../src/runtime/sandbox/runtime-modules.js';
import { CHANNEL_SUPPORT_PATH, CONSOLE_PRELOAD_PATH, startSandboxedProcess } from '../../src/runtime/sandbox/sandboxed-process.js';
import { RUNTIME_PACKAGES } from '../../src/schemas/runtime-packages.js';

// A callback fstat fills Node's shared stat array; on the channel fd (a pipe) it leaves a pipe's
// mode there, which is what made realpath stop early. The import comes in the callback's wake.
const BUNDLE = `import { fstat } from 'node:fs';
import { createRequire } from 'node:module';
await new Promise((resolve) => fstat(3, resolve));
const { default: CDP } = await import('chrome-remote-interface');
const instances = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.endsWith('/chrome-remote-interface/index.js'));
console.log(JSON.stringify({ type: typeof CDP, instances }));
`;

/** Every module `file` imports by a relative path, and those modules' own, in no particular order. */
function relativeImportsOf(file: string, seen = new Set<string>()): Set<string> {
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^import [^'"]*['"](\.{1,2}\/[^'"]+)['"];$/gm)) {
    const imported = resolve(dirname(file), specifier!);
    if (!seen.has(imported)) relativeImportsOf(imported, seen.add(imported));
  }
  return seen;
}

describe('module paths in a user process', () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), 'browserfn-module-paths-'))));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('lets the code loader read every module it imports (and no other of the runtime)', () => {
    // The channel and the console preload are every user process's (sandboxed-process.ts).
    const imported = [...relativeImportsOf(CODE_LOADER_PATH)].filter((file) => file !== CHANNEL_SUPPORT_PATH && file !== CONSOLE_PRELOAD_PATH).sort();
    assert.ok(imported.length > 0, 'the loader imports modules of its own');
    assert.deepEqual(imported, [...CODE_LOADER_SUPPORT_PATHS].sort());
  });

  for (const member of [false, true]) {
    it(`gives a bundle the instance the code loader loaded, after a stat of a pipe (${member ? 'pool member' : 'cold pod'})`, async () => {
      const podDir = join(root, member ? 'member' : 'cold');
      const layout = podLayout(podDir);
      for (const dir of [layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir]) mkdirSync(dir, { recursive: true });
      const bundle = join(layout.codeDir, 'main.mjs');
      writeFileSync(bundle, BUNDLE);
      const runtimeModules = linkRuntimeModules(podDir, defaultRuntimeModulesDir());
      const user = startSandboxedProcess({
        script: CODE_LOADER_PATH,
        args: [layout.codeDir, RUNTIME_PACKAGES.join(','), ...(member ? ['chrome-remote-interface'] : [])],
        cwd: layout.appDir,
        writable: [layout.appDir, layout.homeDir, layout.tmpDir],
        homeDir: layout.homeDir,
        tmpDir: layout.tmpDir,
        readable: [...CODE_LOADER_SUPPORT_PATHS, layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir, ...runtimeModules],
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
