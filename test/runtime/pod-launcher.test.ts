// The in-sandbox pod launcher, run as the node agent runs it (its stdin protocol), outside a
// sandbox: a pod whose one container is this Node running an agent's script, when the node agent
// says so, gets it run in the launcher's own process, as that container; anything else gets a
// process per container. Started ahead of its pod, it loads the agent's script at once and hands
// the process to the pod whose request comes later.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AHEAD_OF_POD, isLaunchResult, PREPARED_LINE, TERMINATE_LINE, type LaunchedContainer } from '../../src/runtime/node-agent/pod-launcher.js';

const LAUNCHER_MAIN = fileURLToPath(new URL('../../src/runtime/node-agent/pod-launcher-main.js', import.meta.url));

/** Prints what the container sees as one JSON line, then exits with EXIT_CODE (or waits for SIGTERM when asked). */
const REPORTING_SCRIPT = `
import { writeSync } from 'node:fs';
writeSync(1, JSON.stringify({ pid: process.pid, cwd: process.cwd(), env: process.env, argv: process.argv.slice(2) }) + '\\n');
if (process.env.WAIT_FOR_TERM) {
  process.on('SIGTERM', () => { console.error('stopping on SIGTERM'); process.exit(0); });
  setInterval(() => {}, 1000);
} else {
  process.exitCode = Number(process.env.EXIT_CODE ?? 0);
}
`;

/** An agent's entry as it runs ahead of its pod: says what it sees, prepares, waits for the handover, then reports as REPORTING_SCRIPT. */
const AHEAD_SCRIPT = `
import { writeSync } from 'node:fs';
const handover = globalThis[Symbol.for('browserfn.podHandover')];
writeSync(1, JSON.stringify({ ahead: { pid: process.pid, env: { ...process.env } } }) + '\\n');
handover.prepared();
await handover.handed;
writeSync(1, JSON.stringify({ pid: process.pid, cwd: process.cwd(), env: process.env, argv: process.argv.slice(2) }) + '\\n');
process.exitCode = Number(process.env.EXIT_CODE ?? 0);
`;

interface Launched {
  launcherPid: number;
  /** Each container's report line. */
  reports: Record<string, unknown>[];
  /** The launcher's result line. */
  result: unknown;
  /** Every other line of its output. */
  output: string;
  exitCode: number | null;
}

describe('pod launcher', function () {
  this.timeout(30_000);
  let dir: string;
  let script: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'browserfn-pod-launcher-'));
    script = join(dir, 'report.mjs');
    writeFileSync(script, REPORTING_SCRIPT);
    writeFileSync(join(dir, 'throws.mjs'), "throw new Error('top-level failure');\n");
    writeFileSync(join(dir, 'ahead.mjs'), AHEAD_SCRIPT);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const container = (name: string, env: Record<string, string>, command = [process.execPath, script, 'one', 'two']): LaunchedContainer => ({ name, command, env, cwd: dir });

  async function launch(containers: LaunchedContainer[], options: { terminateAfterReports?: number; inProcess?: boolean } = {}): Promise<Launched> {
    const child = spawn(process.execPath, [LAUNCHER_MAIN], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LAUNCHER_ONLY: 'yes' } });
    let output = '';
    const reports: Record<string, unknown>[] = [];
    let result: unknown;
    let terminated = false;
    // Once the launcher has gone, its stdin is too: nothing more is written to it.
    child.stdin.on('error', () => undefined);
    // A container run in the launcher's process writes to its stdout, one run as a child to its stderr.
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const parsed = parseJson(line);
        if (isLaunchResult(parsed)) result = parsed;
        else if (typeof parsed === 'object' && parsed !== null && 'pid' in parsed) reports.push(parsed as Record<string, unknown>);
        else output += `${line}\n`;
        // Once: the lines after the reports (the script's last words, the result) come while the launcher ends.
        if (!terminated && reports.length === options.terminateAfterReports) {
          terminated = true;
          child.stdin.write(`${TERMINATE_LINE}\n`);
        }
      });
    }
    child.stdin.write(`${JSON.stringify({ containers, inProcess: options.inProcess ?? true })}\n`);
    const [exitCode] = (await once(child, 'close')) as [number | null];
    return { launcherPid: child.pid!, reports, result, output, exitCode };
  }

  it("runs a lone Node container's script in its own process, with the container's environment, folder and arguments", async () => {
    const { launcherPid, reports, result, exitCode } = await launch([container('agent', { EXIT_CODE: '7', ONLY_THIS: 'set' })]);
    assert.equal(reports.length, 1);
    const [seen] = reports;
    assert.equal(seen.pid, launcherPid, 'no second Node process');
    assert.equal(seen.cwd, dir);
    assert.deepEqual(seen.env, { EXIT_CODE: '7', ONLY_THIS: 'set' }, "the container's environment only, none of the launcher's");
    assert.deepEqual(seen.argv, ['one', 'two']);
    assert.deepEqual(result, { exitCodes: [7] });
    assert.equal(exitCode, 7);
  });

  it('passes a stop request on as SIGTERM to the script in its process', async () => {
    const { launcherPid, reports, result, output } = await launch([container('agent', { WAIT_FOR_TERM: '1' })], { terminateAfterReports: 1 });
    assert.equal(reports[0].pid, launcherPid);
    assert.match(output, /stopping on SIGTERM/);
    assert.deepEqual(result, { exitCodes: [0] });
  });

  it('reports a script that fails to load with exit code 1 and its error', async () => {
    const { result, output } = await launch([container('agent', {}, [process.execPath, join(dir, 'throws.mjs')])]);
    assert.deepEqual(result, { exitCodes: [1] });
    assert.match(output, /agent: Error: top-level failure/);
  });

  it('starts a process per container when the pod has several, when Node must read the environment at its start, or when not asked to run it in process', async () => {
    const several = await launch([container('a', { EXIT_CODE: '0' }), container('b', { EXIT_CODE: '3' })]);
    assert.equal(several.reports.length, 2);
    for (const report of several.reports) assert.notEqual(report.pid, several.launcherPid);
    assert.deepEqual(several.result, { exitCodes: [0, 3] });

    for (const variable of ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'UV_THREADPOOL_SIZE', 'SSL_CERT_FILE']) {
      const withVariable = await launch([container('agent', { [variable]: variable === 'NODE_OPTIONS' ? '--no-warnings' : '4', EXIT_CODE: '4' })]);
      assert.notEqual(withVariable.reports[0].pid, withVariable.launcherPid, variable);
      assert.deepEqual(withVariable.result, { exitCodes: [4] });
    }
    const withNodeEnv = await launch([container('agent', { NODE_ENV: 'production' })]);
    assert.equal(withNodeEnv.reports[0].pid, withNodeEnv.launcherPid, 'NODE_ENV is read by libraries, not by Node at its start');

    const notAsked = await launch([container('server', { EXIT_CODE: '6' })], { inProcess: false });
    assert.notEqual(notAsked.reports[0].pid, notAsked.launcherPid, 'a container the node agent did not name an agent runs apart');
    assert.deepEqual(notAsked.result, { exitCodes: [6] });

    const withFlags = await launch([container('agent', { EXIT_CODE: '5' }, [process.execPath, '--no-warnings', script])]);
    assert.notEqual(withFlags.reports[0].pid, withFlags.launcherPid);
    assert.deepEqual(withFlags.result, { exitCodes: [5] });
  });

  /** A launcher ahead of its pod: lines as they come, and a way to wait for one. */
  function launchAhead(aheadEnv: Record<string, string>) {
    const child = spawn(process.execPath, [LAUNCHER_MAIN, AHEAD_OF_POD, join(dir, 'ahead.mjs'), JSON.stringify(aheadEnv)], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    child.stdin.on('error', () => undefined);
    const lines: string[] = [];
    let seen = () => {};
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      seen();
    });
    const lineMatching = (test: (line: string) => boolean) =>
      new Promise<string>((resolve) => {
        const look = () => {
          const found = lines.find(test);
          if (found) resolve(found);
        };
        const before = seen;
        seen = () => {
          before();
          look();
        };
        look();
      });
    const closed = once(child, 'close') as Promise<[number | null]>;
    return { child, lines, lineMatching, closed };
  }

  it('ahead of its pod: runs the agent script at once with the environment it was given, and hands the process to the pod that comes, as that container', async () => {
    const ahead = launchAhead({ PREPARED_WITH: 'this' });
    const early = JSON.parse(await ahead.lineMatching((line) => line.startsWith('{"ahead"'))) as { ahead: { pid: number; env: Record<string, string> } };
    assert.equal(early.ahead.pid, ahead.child.pid, 'the script runs in the launcher\'s process');
    assert.equal(early.ahead.env.PREPARED_WITH, 'this');
    assert.equal(early.ahead.env.POD_TOKEN, undefined);
    await ahead.lineMatching((line) => line === PREPARED_LINE);
    assert.ok(!ahead.lines.some((line) => line.startsWith('{"pid"')), 'nothing runs as the pod before it comes');
    ahead.child.stdin.write(`${JSON.stringify({ containers: [container('agent', { POD_TOKEN: 'secret', EXIT_CODE: '3' }, [process.execPath, join(dir, 'ahead.mjs'), 'one', 'two'])], inProcess: true })}\n`);
    const [exitCode] = await ahead.closed;
    const seen = JSON.parse(ahead.lines.find((line) => line.startsWith('{"pid"'))!) as Record<string, unknown>;
    assert.equal(seen.pid, ahead.child.pid);
    assert.equal(seen.cwd, dir);
    assert.deepEqual(seen.env, { POD_TOKEN: 'secret', EXIT_CODE: '3' }, "the container's environment only, none it prepared with");
    assert.deepEqual(seen.argv, ['one', 'two']);
    assert.ok(ahead.lines.some((line) => isLaunchResult(parseJson(line)) && line === JSON.stringify({ exitCodes: [3] })), ahead.lines.join('\n'));
    assert.equal(exitCode, 3);
  });

  it('ahead of its pod: refuses a pod that does not run that script in its process, which never gets the handover', async () => {
    for (const [name, command, inProcess] of [
      ['another script', [process.execPath, script], true],
      ['not in process', [process.execPath, join(dir, 'ahead.mjs')], false],
    ] as const) {
      const ahead = launchAhead({});
      await ahead.lineMatching((line) => line === PREPARED_LINE);
      ahead.child.stdin.write(`${JSON.stringify({ containers: [container('agent', { POD_TOKEN: 'secret' }, [...command])], inProcess })}\n`);
      const [exitCode] = await ahead.closed;
      assert.equal(exitCode, 1, name);
      assert.ok(ahead.lines.some((line) => line.includes('was handed another pod')), `${name}: ${ahead.lines.join('\n')}`);
      assert.ok(!ahead.lines.some((line) => line.startsWith('{"pid"') || line.includes('secret')), `${name}: ${ahead.lines.join('\n')}`);
    }
  });

  it('ahead of its pod: exits as its stdin closes before any pod came', async () => {
    const ahead = launchAhead({});
    await ahead.lineMatching((line) => line === PREPARED_LINE);
    ahead.child.stdin.end();
    const [exitCode] = await ahead.closed;
    assert.equal(exitCode, 0);
    assert.ok(!ahead.lines.some((line) => line.startsWith('{"pid"')));
  });

  it('tells its result line apart from a container log line that has an exitCodes field', () => {
    assert.ok(isLaunchResult({ exitCodes: [0, 137] }));
    for (const line of [{ level: 30, msg: 'exited', exitCodes: [0] }, { exitCodes: 'none' }, { exitCodes: [1.5] }, [0], null, 'exitCodes']) {
      assert.equal(isLaunchResult(line), false, JSON.stringify(line));
    }
  });
});

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
