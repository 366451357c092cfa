import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactOf } from '../support/artifact.js';
import { defaultRuntimeModulesDir } from '../../src/runtime/sandbox/runtime-modules.js';
import type { InvocationReport } from '../../src/runtime/pod-agent/invocation-report.js';
import type { SessionRecordsReport } from '../../src/schemas/reports.js';
import { fixtureProject, livingGroupMembers, POD_AGENT_MAIN, processStat, runAgent, startAgent } from './support/agent-process.js';
import { TestControlPlane } from './support/test-control-plane.js';
import { startColdPodAhead } from '../../src/runtime/pod-agent/head-start.js';
import { runPodAgent } from '../../src/runtime/pod-agent/pod-agent.js';
import { processesUnder } from '../support/processes.js';

const NAMESPACE = 'project-a';
const PAGE_TITLE = 'Fixture Page';
const PAGE_CONSOLE_MESSAGE = 'hello from the fixture page';

describe('pod agent', function () {
  this.timeout(60_000);
  let workRoot: string;
  let plane: TestControlPlane;
  let bundleGzip: Buffer;
  let pageServer: Server;
  let pageUrl: string;
  let podCounter = 0;

  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'browserfn-pod-agent-test-'));
    plane = await TestControlPlane.start(`token-${process.pid}-${Date.now()}`);
    const project = fixtureProject('runtime-suite');
    bundleGzip = await artifactOf(project, 'index.mts');
    pageServer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><title>${PAGE_TITLE}</title><script>console.log(${JSON.stringify(PAGE_CONSOLE_MESSAGE)})</script><p>fixture</p>`);
    });
    pageServer.listen(0, '127.0.0.1');
    await once(pageServer, 'listening');
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/page`;
  });

  after(async () => {
    await plane.close();
    pageServer.closeAllConnections();
    pageServer.close();
    rmSync(workRoot, { recursive: true, force: true });
  });

  interface InvokeOptions {
    params?: Record<string, unknown>;
    timeoutSeconds?: number;
    secrets?: Record<string, string>;
    rejectReports?: number;
    onReport?: (podDir: string) => void | Promise<void>;
    onSessionRecords?: (podDir: string) => void | Promise<void>;
    env?: Record<string, string>;
    sessionConfig?: Record<string, unknown>;
  }

  function podFor(functionName: string, options: InvokeOptions): { pod: string; podDir: string } {
    podCounter += 1;
    const pod = `browser-${podCounter}`;
    plane.addPod(NAMESPACE, pod, {
      input: {
        kind: 'invocation',
        invocationId: `invocation-${podCounter}`,
        functionName,
        params: options.params ?? {},
        sessionId: `session-${podCounter}`,
        sessionConfig: options.sessionConfig ?? {},
        timeoutSeconds: options.timeoutSeconds ?? 30,
        region: 'us-west-2',
        secrets: options.secrets ?? {},
      },
      artifact: bundleGzip,
      rejectReports: options.rejectReports,
      onReport: () => options.onReport?.(join(workRoot, pod)),
      onSessionRecords: () => options.onSessionRecords?.(join(workRoot, pod)),
    });
    return { pod, podDir: join(workRoot, pod) };
  }

  async function invoke(functionName: string, options: InvokeOptions = {}) {
    const { pod, podDir } = podFor(functionName, options);
    const { exitCode, logLines } = await runAgent({ main: POD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir, env: options.env });
    const reports = plane.reportsOf(NAMESPACE, pod) as InvocationReport[];
    const sessionRecords = plane.sessionRecordsOf(NAMESPACE, pod) as SessionRecordsReport[];
    assert.equal(exitCode, 0, 'the agent exits 0 once its report is delivered');
    assert.equal(reports.length, 1);
    assert.equal(sessionRecords.length, 1, 'the session records follow the report');
    assert.ok(!('sessionLogs' in reports[0]), 'the outcome comes without the session records');
    return { report: reports[0], records: sessionRecords[0], logLines, pod, podDir };
  }

  function pidsOf(logLines: Record<string, unknown>[]): { chromiumPid: number; userPid: number } {
    const chromiumPid = logLines.find((line) => line.msg === 'browser ready')?.chromiumPid as number;
    const userPid = logLines.find((line) => line.msg === 'function process started')?.userPid as number;
    assert.ok(chromiumPid > 0 && userPid > 0, 'the agent logs the pids it started');
    return { chromiumPid, userPid };
  }

  /** The states of the processes in Chromium's process group, found from the browser process (its crash handlers keep groups of their own, asleep). */
  function chromiumGroupStates(podDir: string): string[] {
    // The browser's own process names the pod's profile; its helpers need not (the headless shell's do not).
    const browser = processesUnder(podDir).find((p) => p.cmdline.includes('--remote-debugging-port=') && !p.cmdline.includes('--type='));
    const group = browser && processStat(browser.pid)?.pgrp;
    return group === undefined ? [] : livingGroupMembers(group).map((pid) => processStat(pid)?.state ?? 'gone');
  }

  /** The states of the processes in the user process's group (the code loader's). */
  function userGroupStates(podDir: string): string[] {
    const user = processesUnder(podDir).find((p) => p.cmdline.includes('code-loader.js'));
    return user ? livingGroupMembers(user.pid).map((pid) => processStat(pid)?.state ?? 'gone') : [];
  }

  /**
   * The states `read` gives once every process shows stopped ('T'), or as they are after two
   * seconds: a SIGSTOP to a group takes effect as each process is next scheduled, which on busy
   * cores comes a little after the signal was sent.
   */
  async function onceStopped(read: () => string[]): Promise<string[]> {
    const deadline = Date.now() + 2000;
    let states = read();
    while (states.some((state) => state !== 'T') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      states = read();
    }
    return states;
  }

  function assertGone(...pids: number[]): void {
    for (const pid of pids) assert.deepEqual(livingGroupMembers(pid), [], `process group ${pid} is gone`);
  }

  it('reports the returned JSON value as results and retries a report the control plane refused, then reports the session records', async () => {
    const value = { nested: [1, 'two', { three: true }], none: null };
    const { report, pod } = await invoke('echo', { params: { value }, rejectReports: 2 });
    assert.equal(report.kind, 'invocation');
    assert.equal(report.phase, 'COMPLETED');
    assert.deepEqual(report.results, value);
    assert.equal(report.cause, undefined);
    assert.ok(Date.parse(report.startedAt) <= Date.parse(report.endedAt));
    assert.match(report.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const calls = plane.requests.filter((request) => request.path.includes(`/${pod}/`));
    // The live-view channel (docs/live-view.md) may dial too (50 ms into the handler), again each time this plane refuses it.
    assert.deepEqual(
      calls.filter((call) => !call.path.endsWith('/live')).map((call) => `${call.method} ${call.path.split('/').pop()}`).sort(),
      ['GET artifact', 'GET input', 'POST report', 'POST report', 'POST report', 'POST session-records'],
    );
    const lastReport = calls.map((call) => call.path.endsWith('/report')).lastIndexOf(true);
    assert.ok(calls.findIndex((call) => call.path.endsWith('/session-records')) > lastReport, 'the session records follow the delivered report');
    assert.ok(calls.every((call) => call.authorization === `Bearer ${plane.token}`));
  });

  it("runs the artifact the node's cache hands a cold pod, unpacked and handed to the code loader before the agent's code has loaded, and downloads nothing", async () => {
    const artifactFile = join(workRoot, `cached-artifact-${podCounter}`);
    writeFileSync(artifactFile, bundleGzip);
    const { report, pod, logLines } = await invoke('echo', { params: { value: 'from the cache' }, env: { BROWSERFN_ARTIFACT_FILE: artifactFile } });
    assert.equal(report.phase, 'COMPLETED');
    assert.equal(report.results, 'from the cache');
    const handed = logLines.find((line) => line.msg === 'artifact from the node cache unpacked and handed over before the agent loaded');
    assert.ok(handed && Number(handed.entries) > 0, 'the agent says the bundle was handed over ahead, and how much it unpacked');
    assert.ok(!plane.requests.some((request) => request.path.includes(`/${pod}/`) && request.path.endsWith('/artifact')), 'no download');
  });

  it("answers code that asked for its invocation before the agent's own code had loaded (its artifact handed ahead)", async () => {
    const artifactFile = join(workRoot, `cached-artifact-early-${podCounter}`);
    writeFileSync(artifactFile, bundleGzip);
    const { pod, podDir } = podFor('echo', { params: { value: 'asked early' } });
    // In this process, as main.ts does it, with the agent's run started only once the code has asked.
    const env = {
      PATH: process.env.PATH,
      BROWSERFN_CONTROL_URL: plane.url,
      BROWSERFN_POD_NAMESPACE: NAMESPACE,
      BROWSERFN_POD_NAME: pod,
      BROWSERFN_POD_TOKEN: plane.token,
      BROWSERFN_POD_DIR: podDir,
      BROWSERFN_ARTIFACT_FILE: artifactFile,
      BROWSERFN_LOG_LEVEL: 'silent',
    };
    const headStart = startColdPodAhead(env);
    assert.ok(headStart, 'the settings are complete');
    while (headStart.api.waitingRequests === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await runPodAgent(env, { headStart }), 0);
    const [report] = plane.reportsOf(NAMESPACE, pod) as InvocationReport[];
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    assert.equal(report.results, 'asked early');
    assert.deepEqual(processesUnder(podDir), []);
  });

  it("fails the invocation as INTERNAL_ERROR when the artifact the node's cache hands a cold pod is no archive, killing what started ahead", async () => {
    const artifactFile = join(workRoot, `broken-artifact-${podCounter}`);
    writeFileSync(artifactFile, 'not a tar.gz');
    const { report, podDir } = await invoke('echo', { params: { value: 1 }, env: { BROWSERFN_ARTIFACT_FILE: artifactFile } });
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'INTERNAL_ERROR');
    assert.match(report.cause?.message ?? '', /^could not load the function bundle: /);
    assert.deepEqual(processesUnder(podDir), [], 'neither the code loader nor the browser outlives the agent');
  });

  it('leaves results out when the handler returns undefined or null', async () => {
    const returnedNothing = await invoke('echo', { params: {} });
    assert.equal(returnedNothing.report.phase, 'COMPLETED');
    assert.ok(!('results' in returnedNothing.report));
    const returnedNull = await invoke('echo', { params: { value: null } });
    assert.equal(returnedNull.report.phase, 'COMPLETED');
    assert.ok(!('results' in returnedNull.report));
  });

  it('captures console output with levels and timestamps, multi-line messages whole, up to the last words before the return', async () => {
    const { report } = await invoke('logs');
    assert.equal(report.phase, 'COMPLETED');
    const byMessage = new Map(report.logs.map((entry) => [entry.message, entry]));
    assert.equal(byMessage.get('plain info { answer: 42 }')?.level, 'info');
    assert.equal(byMessage.get('an info line')?.level, 'info');
    assert.equal(byMessage.get('careful')?.level, 'warn');
    assert.equal(byMessage.get('first line\nsecond line\nthird line')?.level, 'error');
    assert.equal(byMessage.get('debugging')?.level, 'debug');
    assert.equal(byMessage.get('written to stdout directly')?.level, 'info');
    // The report does not wait for the killed process's pipes to close: what it wrote before returning is in.
    assert.equal(byMessage.get('last words, with no newline')?.level, 'error');
    for (const entry of report.logs) assert.ok(!Number.isNaN(Date.parse(entry.timestamp)), `timestamp of "${entry.message}"`);
    const order = ['plain info { answer: 42 }', 'an info line', 'careful', 'first line\nsecond line\nthird line', 'debugging'];
    const times = order.map((message) => Date.parse(byMessage.get(message)!.timestamp));
    assert.deepEqual([...times].sort((a, b) => a - b), times, 'entries keep the order of the calls');
  });

  it('reports a throwing handler as WORKLOAD_ERROR with its stack as one log entry', async () => {
    const { report } = await invoke('throws');
    assert.equal(report.phase, 'FAILED');
    assert.deepEqual(report.cause, { code: 'WORKLOAD_ERROR', message: 'handler exploded' });
    const stack = report.logs.find((entry) => entry.message.startsWith('TypeError: handler exploded\n'));
    assert.ok(stack, 'the stack is logged');
    assert.equal(stack.level, 'error');
    assert.match(stack.message, /\n\s+at explode \(/);
  });

  it("freezes the user process before the outcome's report and Chromium before the session records, and kills them only once both are out", async () => {
    const statesAtReport: { chromium: string[]; user: string[] }[] = [];
    const statesAtRecords: { chromium: string[]; user: string[] }[] = [];
    const { report, logLines } = await invoke('echo', {
      params: { value: 1 },
      rejectReports: 1,
      onReport: async (podDir) => {
        const chromium = chromiumGroupStates(podDir);
        statesAtReport.push({ chromium, user: await onceStopped(() => userGroupStates(podDir)) });
      },
      onSessionRecords: async (podDir) => {
        statesAtRecords.push({ chromium: await onceStopped(() => chromiumGroupStates(podDir)), user: await onceStopped(() => userGroupStates(podDir)) });
      },
    });
    assert.equal(report.phase, 'COMPLETED');
    assert.equal(statesAtReport.length, 2, 'one refused report, one accepted');
    for (const { chromium, user } of statesAtReport) {
      // 'T': stopped by a signal; nothing of the handler runs on after its outcome.
      assert.deepEqual(user, ['T'], `the user process's state while the report was on its way`);
      assert.ok(chromium.length > 2 && !chromium.includes('T'), `the browser still runs while the outcome is on its way, to close the session: ${chromium.join(' ')}`);
    }
    assert.equal(statesAtRecords.length, 1);
    const [{ chromium, user }] = statesAtRecords;
    assert.ok(chromium.length > 2, `the browser and its helpers are still there while the session records are on their way: ${chromium.join(' ')}`);
    assert.deepEqual(new Set(chromium), new Set(['T']), `Chromium's processes' states while the session records were on their way: ${chromium.join(' ')}`);
    assert.deepEqual(user, ['T']);
    const { chromiumPid, userPid } = pidsOf(logLines);
    assertGone(chromiumPid, userPid);
  });

  it('times out, killing the user process and Chromium', async () => {
    const { report, logLines } = await invoke('hangs', { timeoutSeconds: 1.5 });
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'TIMED_OUT');
    assert.match(report.cause?.message ?? '', /1\.5 seconds/);
    const elapsed = Date.parse(report.endedAt) - Date.parse(report.startedAt);
    assert.ok(elapsed >= 1400 && elapsed < 5000, `ended ${elapsed} ms after the handler started`);
    const { chromiumPid, userPid } = pidsOf(logLines);
    assert.ok(report.logs.some((entry) => entry.message === `hanging in ${userPid}`));
    assertGone(chromiumPid, userPid);
  });

  it('gives connectUrl to chrome-remote-interface, playwright-core and puppeteer-core, and records the session', async () => {
    const { report, records } = await invoke('browse', { params: { url: pageUrl } });
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    assert.deepEqual(report.results, { cdp: PAGE_TITLE, playwright: PAGE_TITLE, puppeteer: PAGE_TITLE });
    const requests = records.sessionLogs.filter(
      (entry) => entry.method === 'Network.requestWillBeSent' && (entry.params as { request: { url: string } }).request.url === pageUrl,
    );
    assert.equal(requests.length, 3, 'one page load per client');
    assert.ok(new Set(requests.map((entry) => entry.pageId)).size === 3, 'each on its own page');
    for (const entry of requests) {
      assert.ok(entry.frameId && entry.loaderId && entry.sessionId && typeof entry.timestamp === 'number');
    }
    const methods = new Set(records.sessionLogs.map((entry) => entry.method));
    for (const method of ['Network.responseReceived', 'Page.frameNavigated', 'Page.loadEventFired']) assert.ok(methods.has(method), method);
    const consoleCalls = records.sessionLogs.filter(
      (entry) => entry.method === 'Runtime.consoleAPICalled' && JSON.stringify(entry.params).includes(PAGE_CONSOLE_MESSAGE),
    );
    assert.equal(consoleCalls.length, 3);
  });

  it('sets the session recording up in the pages before the invocation, and withdraws it from them when the invocation records nothing', async () => {
    const recorderWorld = '__browserfn_recording';
    const recorded = await invoke('worlds', { params: { url: pageUrl } });
    assert.equal(recorded.report.phase, 'COMPLETED', JSON.stringify(recorded.report.cause));
    const worlds = recorded.report.results as { firstPage: string[]; newPage: string[] };
    assert.ok(worlds.firstPage.includes(recorderWorld), `recorded from before the invocation: ${JSON.stringify(worlds)}`);
    assert.ok(worlds.newPage.includes(recorderWorld), `a page the handler opens is recorded too: ${JSON.stringify(worlds)}`);

    const unrecorded = await invoke('worlds', { params: { url: pageUrl }, sessionConfig: { browserSettings: { recordSession: false } } });
    assert.equal(unrecorded.report.phase, 'COMPLETED', JSON.stringify(unrecorded.report.cause));
    const bare = unrecorded.report.results as { firstPage: string[]; newPage: string[] };
    assert.ok(bare.firstPage.length > 0 && bare.newPage.length > 0, `the pages' own worlds are seen: ${JSON.stringify(bare)}`);
    assert.ok(!bare.firstPage.includes(recorderWorld) && !bare.newPage.includes(recorderWorld), `no recording runs in any page: ${JSON.stringify(bare)}`);
  });

  it('hands secrets to ctx.secrets and redacts their values from logs and session logs', async () => {
    const secret = 'tok/3n+value&more';
    const { report, records } = await invoke('secrets', { params: { url: pageUrl }, secrets: { API_TOKEN: secret, OTHER: 'second-secret' } });
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    const { keys, tokenLength, invocation, sessionId } = report.results as Record<string, unknown>;
    assert.deepEqual(keys, ['API_TOKEN', 'OTHER']);
    assert.equal(tokenLength, secret.length);
    assert.deepEqual(invocation, { id: `invocation-${podCounter}`, region: 'us-west-2' });
    assert.equal(sessionId, `session-${podCounter}`);
    assert.ok(report.logs.some((entry) => entry.message === 'calling the API with [REDACTED]'));
    const everything = JSON.stringify(report.logs) + JSON.stringify(records);
    assert.ok(!everything.includes(secret) && !everything.includes(encodeURIComponent(secret)), 'no secret value in logs');
    assert.ok(
      records.sessionLogs.some(
        (entry) => entry.method === 'Network.requestWillBeSent' && (entry.params as { request: { url: string } }).request.url === `${pageUrl}?token=[REDACTED]`,
      ),
    );
  });

  it('with BROWSERFN_ECHO_CONSOLE=1 also logs each console entry, redacted, as a `console` record (browserfn dev shows them live)', async () => {
    const secret = 'echo-secret-value';
    const { report, logLines } = await invoke('secrets', { params: { url: pageUrl }, secrets: { API_TOKEN: secret, OTHER: 'x-other-secret' }, env: { BROWSERFN_ECHO_CONSOLE: '1' } });
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    const echoed = logLines.filter((line) => line.msg === 'console').map((line) => line.console as { level: string; message: string });
    assert.ok(echoed.some((entry) => entry.level === 'info' && entry.message === 'calling the API with [REDACTED]'), JSON.stringify(echoed));
    assert.ok(!JSON.stringify(logLines).includes(secret), 'no secret value in the agent log');
    const { logLines: quiet } = await invoke('secrets', { params: { url: pageUrl }, secrets: { API_TOKEN: secret, OTHER: 'x-other-secret' } });
    assert.ok(!quiet.some((line) => line.msg === 'console'), 'off by default');
  });

  it('keeps user code inside its sandbox: no reads or writes outside its directories, no processes, no agent environment', async () => {
    const outsideFile = join(workRoot, 'outside.txt');
    writeFileSync(outsideFile, 'not for user code');
    const { report, podDir } = await invoke('sandbox', { params: { outsideFile } });
    assert.equal(report.phase, 'COMPLETED', JSON.stringify(report.cause));
    const results = report.results as Record<string, unknown>;
    assert.equal(results.readOutside, 'ERR_ACCESS_DENIED');
    assert.equal(results.readEtc, 'ERR_ACCESS_DENIED');
    assert.equal(results.writeOutside, 'ERR_ACCESS_DENIED');
    assert.equal(results.spawn, 'ERR_ACCESS_DENIED');
    assert.equal(results.writeRuntimeModules, 'ERR_ACCESS_DENIED', 'no writing through the node_modules link into shared packages');
    assert.ok(!existsSync(join(defaultRuntimeModulesDir(), 'planted-by-user-code.txt')));
    assert.equal(results.writeHome, 'allowed');
    assert.ok(existsSync(join(podDir, 'home', 'note.txt')));
    assert.ok(!existsSync(`${outsideFile}.written`));
    assert.deepEqual(results.envKeys, ['AWS_LAMBDA_RUNTIME_API', 'BB_FUNCTIONS_PHASE', 'HOME', 'NODE_ENV', 'PATH', 'TMPDIR', 'TZ']);
    assert.equal(results.cwd, join(podDir, 'app'));
  });

  it('reports a process that exits without a result as WORKLOAD_ERROR with its exit code', async () => {
    const { report, logLines } = await invoke('exits');
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'WORKLOAD_ERROR');
    assert.match(report.cause?.message ?? '', /exited with code 3 before returning a result: about to exit/);
    assertGone(pidsOf(logLines).chromiumPid);
  });

  it('refuses a result larger than 1 MiB', async () => {
    const { report } = await invoke('huge');
    assert.equal(report.phase, 'FAILED');
    assert.equal(report.cause?.code, 'WORKLOAD_ERROR');
    assert.match(report.cause?.message ?? '', /result is larger than 1048576 bytes/);
  });

  it('on SIGTERM before the outcome reports nothing, exits 1 and kills the user process and Chromium', async () => {
    const { pod, podDir } = podFor('hangs', { timeoutSeconds: 60 });
    const agent = startAgent({ main: POD_AGENT_MAIN, plane, namespace: NAMESPACE, pod, podDir });
    await agent.logged('invocation handed to the function code');
    agent.child.kill('SIGTERM');
    assert.equal(await agent.exited, 1);
    assert.deepEqual(plane.reportsOf(NAMESPACE, pod), [], 'the control plane counts the pod as lost and runs the invocation again');
    const { chromiumPid, userPid } = pidsOf(agent.logLines);
    assertGone(chromiumPid, userPid);
  });
});
