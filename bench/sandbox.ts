// The start cost of a pod sandbox (pasta + bubblewrap): a trivial command, Node, and Chromium
// launch-to-CDP-ready, each run plain, sandboxed, and (own network) sandboxed in a network made
// ahead as the node agent does (spare-networks.ts), side by side in one run on the same machine.
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArguments } from '../src/runtime/chromium/local-chromium-provider.js';
import { defaultChromiumPath } from '../src/config/chromium-build.js';
import { codeMounts } from '../src/runtime/node-agent/code-mounts.js';
import { hostIdBlock } from '../src/runtime/node-agent/host-ids.js';
import { runsAsRoot, trialUid } from '../src/runtime/node-agent/pod-users.js';
import { makeNetwork } from '../src/runtime/node-agent/spare-networks.js';
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

/** `command` is given the holder pid of a network made ahead for each run when `ahead`; that network is made before the clock starts. */
async function measure(command: (joinNetworkOf?: number) => [string, string[]], readyLine?: RegExp, ahead = false): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const network = ahead ? await makeNetwork({ forwardPorts: [] }, BENCH_UID) : undefined;
    try {
      const ms = await timeRun(command(network?.holderPid), readyLine);
      if (i > 0) times.push(ms); // the first run warms the file cache
    } finally {
      await network?.end();
    }
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
  const sandboxed = (command: string[], joinNetworkOf?: number): [string, string[]] =>
    sandboxCommand({ network, forwardPorts: [], mounts: [...code.mounts, { source: work, target: '/work', writable: true }], command, joinNetworkOf });
  const madeAhead = network === 'pasta';
  let profile = 0;
  const chromium = (dir: string, sandbox: boolean) => [CHROMIUM, ...chromiumArguments(`${dir}/profile-${profile++}`, undefined, 0, { sandbox, executablePath: CHROMIUM })];
  try {
    const chromiumPlain = (): [string, string[]] => {
      const [file, ...args] = chromium(work, false);
      return [file, args];
    };
    const chromiumBoxed = (joinNetworkOf?: number) => sandboxed(chromium('/work', support.chromiumSandbox), joinNetworkOf);
    const row = async (name: string, plain: () => [string, string[]], boxed: (joinNetworkOf?: number) => [string, string[]], readyLine?: RegExp): Promise<[string, number[][]]> => [
      name,
      [await measure(plain, readyLine), await measure(boxed, readyLine), ...(madeAhead ? [await measure(boxed, readyLine, true)] : [])],
    ];
    const rows = [
      await row('trivial command (true) → exit', () => ['true', []], (join) => sandboxed(['true'], join)),
      await row('node -e "" → exit', () => [code.node, ['-e', '']], (join) => sandboxed([code.node, '-e', ''], join)),
      await row(`Chromium launch → CDP ready (sandboxed: its own sandbox ${support.chromiumSandbox ? 'on' : 'off'})`, chromiumPlain, chromiumBoxed, DEVTOOLS_LINE),
    ];
    const columns = ['plain', 'sandbox', ...(madeAhead ? ['network ahead'] : [])];
    console.log(`\n== Pod sandbox start cost (${RUNS} runs each, network ${network}, same machine, same run) ==`);
    if (madeAhead) console.log('("network ahead": the sandbox joins a network made before the clock starts, as the node agent keeps one ready)');
    const headers = [...columns.map((c) => `${c} p50`), ...columns.map((c) => `${c} p95`)];
    console.log('measure'.padEnd(72) + headers.map((h) => h.padStart(Math.max(11, h.length + 2))).join(''));
    for (const [name, series] of rows) {
      const figures = [...series.map((times) => percentile(times, 50)), ...series.map((times) => percentile(times, 95))];
      console.log(name.padEnd(72) + figures.map((ms, i) => ms.toFixed(0).padStart(Math.max(11, headers[i].length + 2))).join(''));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
