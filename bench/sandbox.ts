// The start cost of a pod sandbox (pasta + bubblewrap): a trivial command, Node, and Chromium
// launch-to-CDP-ready, each run plain and sandboxed, side by side in one run on the same machine.
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArguments } from '../src/runtime/chromium/local-chromium-provider.js';
import { defaultChromiumPath } from '../src/config/chromium-build.js';
import { codeMounts } from '../src/runtime/node-agent/code-mounts.js';
import { hostIdBlock } from '../src/runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../src/runtime/node-agent/pod-users.js';
import { sandboxCommand, type SandboxNetwork } from '../src/runtime/sandbox/pod-sandbox.js';
import { detectSandboxSupport } from '../src/runtime/sandbox/sandbox-support.js';
import { percentile } from './invocations.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const CHROMIUM = process.env.BROWSERFN_CHROMIUM_PATH || defaultChromiumPath();
const DEVTOOLS_LINE = /DevTools listening on ws:\/\//;
/** A uid of the pod range the bench runs sandboxes as when it is root (as the node agent would). */
const BENCH_UID = runsAsRoot() ? trialUid(hostIdBlock(0).podUids) - 1 : undefined;

const POD_LIKE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() };

/** Milliseconds from spawn until the process exits 0, or (with `readyLine`) prints that line on stderr. */
function timeRun([file, args]: [string, string[]], readyLine?: RegExp): Promise<number> {
  const started = performance.now();
  // A pod's processes get only their spec's environment: the bench's own (NODE_EXTRA_CA_CERTS, which Node reads as it starts, ~45 ms here) is not theirs.
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, uid: BENCH_UID, gid: BENCH_UID, env: POD_LIKE_ENV });
  return new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
      if (readyLine?.test(stderr)) resolve(performance.now() - started);
    });
    child.once('exit', (code) => (code === 0 && !readyLine ? resolve(performance.now() - started) : reject(new Error(`${file} exited with ${code}: ${stderr.slice(-500)}`))));
  }).finally(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
}

async function measure(command: () => [string, string[]], readyLine?: RegExp): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const ms = await timeRun(command(), readyLine);
    if (i > 0) times.push(ms); // the first run warms the file cache
  }
  return times;
}

export async function runSandboxBench(network: SandboxNetwork = 'pasta'): Promise<void> {
  const code = codeMounts(CHROMIUM);
  const support = await detectSandboxSupport({ network, mounts: code.mounts, node: code.node, packageFile: '/opt/browserfn/package.json', uid: BENCH_UID });
  if (!support.available) {
    console.log(`\n== Pod sandbox: not available here (${support.reason}) ==`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
  if (BENCH_UID !== undefined) chownSync(work, BENCH_UID, BENCH_UID);
  const sandboxed = (command: string[]): [string, string[]] =>
    sandboxCommand({ network, forwardPorts: [], mounts: [...code.mounts, { source: work, target: '/work', writable: true }], command });
  let profile = 0;
  const chromium = (dir: string, sandbox: boolean) => [CHROMIUM, ...chromiumArguments(`${dir}/profile-${profile++}`, undefined, 0, { sandbox, executablePath: CHROMIUM })];
  try {
    const rows: [string, number[], number[]][] = [
      ['trivial command (true) → exit', await measure(() => ['true', []]), await measure(() => sandboxed(['true']))],
      ['node -e "" → exit', await measure(() => [code.node, ['-e', '']]), await measure(() => sandboxed([code.node, '-e', '']))],
      [
        `Chromium launch → CDP ready (sandboxed: its own sandbox ${support.chromiumSandbox ? 'on' : 'off'})`,
        await measure(() => {
          const [file, ...args] = chromium(work, false);
          return [file, args];
        }, DEVTOOLS_LINE),
        await measure(() => sandboxed(chromium('/work', support.chromiumSandbox)), DEVTOOLS_LINE),
      ],
    ];
    console.log(`\n== Pod sandbox start cost (${RUNS} runs each, network ${network}, same machine, same run) ==`);
    console.log('measure'.padEnd(72) + 'plain p50'.padStart(11) + 'sandbox p50'.padStart(13) + 'plain p95'.padStart(11) + 'sandbox p95'.padStart(13));
    for (const [name, plain, boxed] of rows) {
      const figures = [percentile(plain, 50), percentile(boxed, 50), percentile(plain, 95), percentile(boxed, 95)];
      console.log(name.padEnd(72) + figures.map((ms, i) => ms.toFixed(0).padStart(i % 2 === 0 ? 11 : 13)).join(''));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
