// One invocation in a browser pod, from input to report and the session's close. Chromium, the
// recorder, the runtime API and the user process (the code loader) start first and need no
// invocation: a warm pool member starts them, then waits to be claimed; a cold pod's entry has
// started the processes before the run exists (head-start.ts). The input and the artifact
// follow; the user code's first `next` is answered once the input and the browser are there, and
// the first of result / error / exit / timeout / termination decides. The outcome is reported
// first; the session closes after it.
import type { SessionProxy } from './session-proxy.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../config/logger.js';
import { SessionRecorder, type SessionLogEntry } from '../cdp-recorder/session-recorder.js';
import { MetricsSampler } from '../cdp-recorder/metrics-sampler.js';
import { LiveChannel } from './live-view/live-channel.js';
import type { SessionRecording } from '../cdp-recorder/session-recording.js';
import { finishRecording, keepRecording, prepareRecording } from './recording-lifecycle.js';
import { uploadRecording } from './recording-upload.js';
import type { BrowserProvider, LeasedBrowser } from '../chromium/browser-provider.js';
import { LogCollector } from '../sandbox/log-collector.js';
import { captureProcessOutput, type CapturedOutput } from '../sandbox/output-capture.js';
import { LOADER_READY_RECORD, type LoaderInstruction } from '../sandbox/channel.js';
import { describeExit, processLives, type ExitStatus } from '../sandbox/process-group.js';
import type { PodLayout } from '../sandbox/pod-layout.js';
import type { SandboxedProcess } from '../sandbox/sandboxed-process.js';
import type { AgentSettings } from '../agent-common/agent-settings.js';
import type { ControlPlaneClient } from '../agent-common/control-plane-client.js';
import { parseInvocationInput, type InvocationInput } from './invocation-input.js';
import { failed, type InvocationOutcome, type InvocationReport } from './invocation-report.js';
import { errorHeadline, parseErrorReport, resultOutcome } from './handler-reports.js';
import { INVOCATION_LIMITS } from './limits.js';
import { ARTIFACT_LIMITS } from './artifact-limits.js';
import { warmUpExtraction } from '../agent-common/safe-extract.js';
import { RuntimeApiServer, type RuntimeReport, type ServedInvocation } from './runtime-api-server.js';
import { createRedactor, redactDeep, type Redactor } from './secret-redaction.js';
import { isRuntimePackage } from '../../schemas/runtime-packages.js';
import { settledWithin } from '../agent-common/settled-within.js';
import { warmUpHttpCalls } from './http-call-warm-up.js';
import { startAhead, type HeadStart } from './head-start.js';
import { unpackBundle, type UnpackedBundle } from './bundle-unpack.js';

const BROWSER_GONE = 'The browser was killed or crashed during the invocation';
/** A pool member's scratch folder for its extraction warm-up, in the pod folder beside (not in) what its user process may read. */
const EXTRACTION_WARM_UP_DIR = 'extraction-warm-up';
/** How long a session's end waits on the browser for each step of the recording's end (unpainted pages' frames, the recorder's last answer). */
const RECORDING_END_WAIT_MS = 1000;

/**
 * How long into the handler its live-view channel is dialled. Its set-up costs the agent and the
 * façade 1-2 ms of CPU each, which the handler's first CDP commands waited behind (about 2 ms of a
 * warm invocation); a handler done sooner had nothing to view. Viewers ask the debug route for the
 * live URLs first, which waits for the channel.
 */
const LIVE_CHANNEL_DELAY_MS = 50;

/** Where the invocation comes from: the input route (cold pods) or the assignment (pool members). */
export type InputSource = () => Promise<unknown>;

export interface InvocationRunOptions {
  /** Where the invocation comes from; the input route by default. */
  inputSource?: InputSource;
  /** Processes started for this run before it existed; it starts them itself otherwise. */
  headStart?: HeadStart;
}

export class InvocationRun {
  readonly #logs = new LogCollector(INVOCATION_LIMITS.logs);
  readonly #agentStartedAt = new Date();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #outcome: Promise<InvocationOutcome>;
  readonly #inputSource: InputSource;
  readonly #headStart: HeadStart | undefined;
  #resolveOutcome!: (outcome: InvocationOutcome) => void;
  #settled = false;
  /** SIGTERM ended the run before its outcome: nothing is reported. */
  #terminated = false;
  /** When a pool member was handed its invocation (a cold pod has it from its start). */
  #claimedAt: Date | undefined;
  /**
   * A failure of code loaded ahead (its import failed, its process exited, it never asked for its
   * invocation), kept for the invocation that claims the member.
   */
  #codeFailure: { outcome: InvocationOutcome; errorLog?: string } | undefined;
  #onCodeFailure: () => void = () => undefined;
  #startedAt: Date | undefined;
  #endedAt: Date | undefined;
  #polled = false;
  #redact: Redactor = (text) => text;
  #browserLaunch: Promise<LeasedBrowser> | undefined;
  /** A proxied session's proxy (session-proxy.ts), started with the browser. */
  #sessionProxyStart: Promise<SessionProxy> | undefined;
  /** The browser, once launched. */
  #browser: LeasedBrowser | undefined;
  #recorderStart: Promise<SessionRecorder> | undefined;
  /** The recorder, once started. */
  #recorder: SessionRecorder | undefined;
  /** Attached to the pages from the recorder's start, before the invocation says whether to keep it. */
  #preparedRecording: SessionRecording | undefined;
  /** The invocation's recording, once it kept the prepared one. */
  #recording: SessionRecording | undefined;
  #user: SandboxedProcess | undefined;
  #userOutput: CapturedOutput | undefined;
  /** The outcome is the handler's own report over the runtime API (not a timeout, an exit, a kill). */
  #handlerReported = false;
  #prepared: Prepared | undefined;
  readonly #sampler = new MetricsSampler();
  /** Open while the handler runs: the façade relays live viewers through it. */
  #liveChannel: LiveChannel | undefined;
  /** The user process's kill, from the session's end. */
  #userGone: Promise<void> | undefined;
  /** The browser's release, once begun: at the session's end, or after the report for a frozen one. */
  #browserRelease: Promise<void> | undefined;
  /** Every process of the ended session being reaped. */
  #teardown: Promise<void> | undefined;

  constructor(
    private readonly settings: AgentSettings,
    private readonly agentEnv: NodeJS.ProcessEnv,
    private readonly browsers: BrowserProvider,
    private readonly control: ControlPlaneClient,
    private readonly log: Logger,
    options: InvocationRunOptions = {},
  ) {
    this.#inputSource = options.inputSource ?? (() => control.getInput());
    this.#headStart = options.headStart;
    this.#outcome = new Promise((resolve) => (this.#resolveOutcome = resolve));
    if (settings.echoConsole) {
      // Redacted like the report: the secrets are known once the input is, before the handler gets them.
      this.#logs.onEntry((entry) => log.info({ console: { level: entry.level, message: this.#redact(entry.message), timestamp: entry.timestamp } }, 'console'));
    }
  }

  /**
   * SIGTERM to the agent: its pod is being deleted, evicted or stopped with its node. The run ends
   * unreported unless its outcome was decided already, so the invocation is run again in a new pod
   * (while attempts remain) as when a pod is lost outright; a report would fail it.
   */
  terminate(): void {
    if (this.#settled) return;
    this.#terminated = true;
    this.#finish(failed('INTERNAL_ERROR', 'terminated'));
  }

  /** Whether the run has ended (a pool member whose browser died must not be handed an invocation). */
  get ended(): boolean {
    return this.#settled;
  }

  /** Ends when the run does, e.g. its browser died while a pool member waited. */
  get outcome(): Promise<InvocationOutcome> {
    return this.#outcome;
  }

  /**
   * Starts what needs no invocation: the browser and its recorder, the runtime API and the user
   * process, which loads the runtime packages. Resolves once all are up (a pool member is then
   * ready); a failure ends the run.
   */
  prepare(): Promise<void> {
    this.#prepared ??= this.#startPrepared();
    return this.#prepared.ready;
  }

  #startPrepared(): Prepared {
    // The viewport comes with the pod spec, so the browser starts at once; a proxied one once its session proxy listens.
    // Loaded only then: the proxy library is not on the path of a pod without one.
    const { proxyPort } = this.settings;
    const { layout, api, user, browser: launched, launchAbort } =
      this.#headStart ?? startAhead(this.settings, this.agentEnv, proxyPort === undefined ? this.browsers : undefined);
    const sessionProxy = proxyPort === undefined ? undefined : import('./session-proxy.js').then(({ SessionProxy }) => SessionProxy.start(proxyPort));
    if (sessionProxy) {
      this.#failOnRejection(sessionProxy, 'could not start the session proxy');
      this.#sessionProxyStart = sessionProxy;
    }
    const browser = this.#adoptBrowser(launched ?? Promise.resolve(sessionProxy).then((proxy) => this.#launchBrowser(layout.browserDir, proxy?.url, launchAbort.signal)));
    this.#failOnRejection(browser, 'could not start the browser');
    // The code's first `next` waits for the invocation: code loaded ahead asks before it is claimed.
    let giveInput!: (input: Promise<InvocationInput>) => void;
    const input = new Promise<InvocationInput>((resolve) => (giveInput = resolve));
    input.catch(() => undefined);
    let codeAsked!: () => void;
    const asked = new Promise<void>((resolve) => (codeAsked = resolve));
    const userProcess = user.then((started) => this.#adoptUserProcess(started));
    // Its failures end the run through the browser's and the user process's own promises.
    const browserTold = Promise.all([browser, userProcess]).then(([leased]) => this.#instructLoader({ browser: leased.wsEndpoint }));
    browserTold.catch(() => undefined);
    const packagesLoaded = userProcess.then((started) => started.loaded);
    this.#failOnRejection(packagesLoaded, 'could not start the function process');
    // A pool member's code loader tries its browser clients out in the browser before it says it is
    // ready (sandbox/page-driver-warm-up.ts): the recording starts after, so none of that is in it.
    const recorded: Promise<LeasedBrowser> = this.settings.poolMember ? Promise.all([browser, packagesLoaded]).then(([leased]) => leased) : browser;
    const recorder: Promise<SessionRecorder> = recorded.then((leased) => this.#startRecorder(leased));
    this.#failOnRejection(recorder, 'could not start recording the browser session');
    // Once all its handlers name is there: code handed its bundle ahead (head-start.ts) may have asked already, and is answered at once.
    api.serve(
      {
        firstInvocation: () => this.#serve(input, browser, recorder),
        onPoll: () => {
          this.#polled = true;
          codeAsked();
          this.log.info('function code loaded and asked for its invocation');
        },
        onReport: (report) => this.#onRuntimeReport(report),
      },
      INVOCATION_LIMITS.maxResultBytes,
    );
    // A member that loads its code ahead unpacks its own artifact; any other warms the extraction up
    // once its browser is up, unless its invocation (and so its artifact) came first: claimed while it starts.
    const codeAhead = this.#loadsCodeAhead ? this.#loadCodeAhead(layout, userProcess, browserTold, asked) : undefined;
    const extractionWarmed = this.settings.poolMember && !codeAhead ? browser.then(() => (this.#claimedAt ? undefined : this.#warmUpExtraction())) : undefined;
    // Every member warms up its HTTP calls (http-call-warm-up.ts) the same way.
    const httpCallsWarmed = this.settings.poolMember ? browser.then(() => (this.#claimedAt ? undefined : this.#warmUpHttpCalls())) : undefined;
    // Ready to be claimed: the pages already open are recorded too. Code loaded ahead that failed is
    // ready too: it fails the invocation that claims the member, as a cold pod would.
    const started = Promise.all([browser, recorder.then((attached) => attached.settled()), packagesLoaded, extractionWarmed, httpCallsWarmed, codeAhead?.asked]).then(() => undefined);
    const ready = Promise.race([started, new Promise<void>((resolve) => (this.#onCodeFailure = resolve))]);
    ready.catch(() => undefined);
    return { layout, api, launchAbort, ready, userStarted: userProcess.then(() => undefined), browserTold, codeAhead: codeAhead?.instructed, setInput: giveInput };
  }

  /** A pool member whose pod names an artifact loads that code before it is claimed (the pool's preloadArtifact). */
  get #loadsCodeAhead(): boolean {
    return this.settings.poolMember && this.settings.artifactSha256 !== undefined;
  }

  /**
   * Gets and unpacks the member's artifact and has the code loader import it, whose code then asks
   * for its invocation and waits. `instructed`: the loader has the bundle and the browser (its stdin
   * stays open until then, and for the word that it is claimed); `asked`: the code has asked.
   */
  #loadCodeAhead(layout: PodLayout, userProcess: Promise<unknown>, browserTold: Promise<void>, asked: Promise<void>): { instructed: Promise<void>; asked: Promise<void> } {
    const bundle = this.#obtainArtifact().then((artifact) => this.#unpackArtifact(artifact, layout.codeDir));
    this.#failOnRejection(bundle, 'could not load the function bundle');
    const handedOver = Promise.all([bundle, userProcess]).then(([bundlePath]) => this.#loadCode(bundlePath, true));
    this.#failOnRejection(handedOver, 'could not hand the function code to its process');
    const instructed = Promise.all([handedOver, browserTold]).then(() => undefined);
    instructed.catch(() => undefined);
    return { instructed, asked: Promise.all([instructed, asked]).then(() => undefined) };
  }

  async execute(): Promise<InvocationReport | undefined> {
    void this.prepare();
    this.#claimedAt = new Date();
    const { layout, userStarted, browserTold, codeAhead, setInput } = this.#prepared!;
    const input = Promise.resolve().then(this.#inputSource).then(parseInvocationInput).then((value) => this.#runsLoadedCode(value, codeAhead !== undefined));
    setInput(input);
    void input.then((value) => (this.#redact = createRedactor(value.secrets)), () => undefined);
    void Promise.all([input, this.#sessionProxyStart]).then(([value, proxy]) => proxy?.route(value.sessionConfig, value.browserProxy), () => undefined);
    this.#failOnRejection(input, 'could not get the invocation input');
    if (codeAhead) {
      // Claimed while it starts, the member may not have handed its code over yet: stdin ends after that.
      this.#instructLoader({ claimed: true });
      void codeAhead.then(() => this.#user?.stdin?.end(), () => undefined);
      if (this.#codeFailure) this.#finish(this.#codeFailure.outcome, this.#codeFailure.errorLog);
    } else {
      const handedOver = this.#headStart?.bundle ? this.#bundleHandedAhead(this.#headStart.bundle) : this.#handBundle(input, layout, userStarted);
      this.#failOnRejection(handedOver, 'could not hand the function code to its process');
      void Promise.all([handedOver, browserTold]).then(() => this.#user?.stdin?.end(), () => undefined);
    }

    const outcome = await this.#outcome;
    this.log.info({ phase: outcome.phase, cause: outcome.phase === 'FAILED' ? outcome.cause.code : undefined }, 'invocation ended');
    // The outcome is reported once the user code has stopped and its console output is complete;
    // the session closes after that (closeSession()).
    await this.#stopUserCode();
    return this.#terminated ? undefined : this.#report(outcome);
  }

  /**
   * After the outcome's report: the browser session closes. Its recording is stopped and stored,
   * then its recorded CDP events and metrics are reported; the control plane deletes the pod once
   * they are in. Never fails: a session whose records cannot be delivered has none.
   */
  async closeSession(): Promise<void> {
    const sessionLogs = await this.#closeBrowserSession();
    const recording = await finishRecording(this.#recording, this.#endedAt ?? new Date(), this.log);
    if (recording.length > 0) await uploadRecording(this.control, recording, this.log);
    try {
      await this.control.postSessionRecords({ sessionLogs: redactDeep(sessionLogs, this.#redact), metrics: redactDeep(this.#sampler.stop(), this.#redact) });
    } catch (error) {
      this.log.warn({ err: error as Error }, 'could not deliver the session records; the session has none');
    }
  }

  /** The invocation, when its artifact is the code this member loaded ahead (the claim guarantees it; checked all the same). */
  #runsLoadedCode(input: InvocationInput, codeAhead: boolean): InvocationInput {
    if (codeAhead && input.artifactSha256 !== this.settings.artifactSha256) {
      throw new Error(`the invocation runs the artifact of sha256 ${input.artifactSha256}, this pool member loaded ${this.settings.artifactSha256}`);
    }
    return input;
  }

  /** Ends a pool member that was never claimed: everything stops, nothing is reported. */
  async discard(): Promise<void> {
    this.#finish(failed('INTERNAL_ERROR', 'discarded'));
    await this.#stopUserCode();
    await this.#closeBrowserSession();
    await finishRecording(this.#recording, new Date(), this.log);
    await this.tearDown();
  }

  #launchBrowser(workDir: string, proxyServer: string | undefined, signal: AbortSignal): Promise<LeasedBrowser> {
    if (this.#settled) throw new Error('invocation already ended');
    return this.browsers.acquire({ workDir, viewport: this.settings.viewport, proxyServer, signal });
  }

  #adoptBrowser(launch: Promise<LeasedBrowser>): Promise<LeasedBrowser> {
    this.#browserLaunch = launch;
    void launch.then((leased) => {
      this.log.info({ chromiumPid: leased.pid, wsEndpoint: leased.wsEndpoint }, 'browser ready');
      this.#browser = leased;
      // The session is the browser: once it is gone nothing the handler does can succeed, and it is not the handler's fault.
      void leased.exited?.then((how) => this.#finish(failed('INTERNAL_ERROR', `The browser ${how} during the invocation`)));
    }, () => undefined);
    return launch;
  }

  #startRecorder(browser: LeasedBrowser): Promise<SessionRecorder> {
    if (this.#settled) throw new Error('invocation already ended');
    this.#recorderStart = SessionRecorder.start(browser.wsEndpoint, INVOCATION_LIMITS.sessionLogs).then((recorder) => {
      this.#recorder = recorder;
      recorder.addInstrument(this.#sampler);
      this.#preparedRecording = prepareRecording(this.settings, recorder, this.log);
      return recorder;
    });
    return this.#recorderStart;
  }

  /**
   * The artifact's bytes: handed over verified by the node agent's cache, handed with a pool
   * member's assignment, or downloaded; the last two verified here against the sha256 of the pod
   * spec (cold pods) or of the assignment (pool members).
   */
  async #obtainArtifact(input?: Promise<InvocationInput>): Promise<Buffer> {
    const { artifactFile, podDir } = this.settings;
    if (artifactFile) {
      this.log.info({ artifactFile }, 'artifact from the node cache');
      return readFileSync(artifactFile);
    }
    // A cold pod (and a member loading its code ahead) knows the hash from its spec and downloads while its input is fetched.
    const assignment = this.settings.artifactSha256 || !input ? undefined : await input;
    const artifactSha256 = this.settings.artifactSha256 ?? assignment?.artifactSha256;
    if (assignment?.artifactBase64 !== undefined) {
      const artifact = Buffer.from(assignment.artifactBase64, 'base64');
      const sha256 = createHash('sha256').update(artifact).digest('hex');
      if (sha256 !== artifactSha256) throw new Error(`the artifact that came with the assignment hashes to sha256 ${sha256}, expected ${artifactSha256}`);
      this.log.info({ size: artifact.length, sha256 }, 'artifact came with the assignment and is verified');
      return artifact;
    }
    const file = join(podDir, 'artifact');
    const artifact = await this.control.downloadArtifact(file, artifactSha256);
    this.log.info({ size: artifact.size, sha256: artifact.sha256 }, 'artifact downloaded and verified');
    return readFileSync(file);
  }

  /** A pool member's first unpacking would run cold code: it unpacks an archive of its own ahead. */
  async #warmUpExtraction(): Promise<void> {
    const started = performance.now();
    try {
      await warmUpExtraction(join(this.settings.podDir, EXTRACTION_WARM_UP_DIR), ARTIFACT_LIMITS);
      this.log.info({ ms: Math.round(performance.now() - started) }, 'artifact extraction warmed up');
    } catch (err) {
      this.log.warn({ err }, 'could not warm up the artifact extraction');
    }
  }

  async #warmUpHttpCalls(): Promise<void> {
    const started = performance.now();
    try {
      await warmUpHttpCalls();
      this.log.info({ ms: Math.round(performance.now() - started) }, 'HTTP calls warmed up');
    } catch (err) {
      this.log.warn({ err }, 'could not warm up the HTTP calls');
    }
  }

  /** The build's tar.gz, unpacked with the same checks as an upload (no links leading out, size caps). */
  async #unpackArtifact(artifact: Buffer, codeDir: string): Promise<string> {
    const { path, entries, bytes, ms } = await unpackBundle(artifact, codeDir);
    this.log.info({ entries, bytes, ms }, 'artifact unpacked');
    return path;
  }

  /**
   * The code loader (head-start.ts), which imports the bundle once told where it is (#loadCode) and
   * is told the browser's address too (#instructLoader). Resolves once it has loaded the runtime
   * packages. One started for a run that has ended already is killed.
   */
  #adoptUserProcess(user: SandboxedProcess): { loaded: Promise<void> } {
    this.#user = user;
    if (this.#settled) {
      void this.#killUser();
      return { loaded: Promise.resolve() };
    }
    this.log.info({ userPid: user.pid, permissionModel: user.permissionModel }, 'function process started');
    let loaderReady!: () => void;
    const loaded = new Promise<void>((resolve) => (loaderReady = resolve));
    this.#userOutput = captureProcessOutput(user.streams, this.#logs, {
      onRecord: (record) => {
        if (record.type !== LOADER_READY_RECORD) return;
        // Written by the user's process: only names this agent knows reach its log.
        if (Array.isArray(record.warmedUp)) this.log.info({ warmedUp: record.warmedUp.filter(isRuntimePackage) }, 'function process warmed up its clients');
        loaderReady();
      },
    });
    void user.exited.then((status) => this.#onUserExit(status));
    return { loaded };
  }

  /** Gets and unpacks the artifact, then tells the code loader its bundle. */
  #handBundle(input: Promise<InvocationInput>, layout: PodLayout, userStarted: Promise<void>): Promise<void> {
    // Unpacked once the user process is spawned (or has failed to, which ends the run on its own):
    // the unpacking holds this thread, and the process's start (Node's, beside the browser's) is the longer.
    const spawned = userStarted.catch(() => undefined);
    const bundle = spawned.then(() => this.#obtainArtifact(input)).then((artifact) => this.#unpackArtifact(artifact, layout.codeDir));
    this.#failOnRejection(bundle, 'could not load the function bundle');
    return Promise.all([bundle, userStarted]).then(([bundlePath]) => this.#loadCode(bundlePath));
  }

  /** The bundle the head start unpacked and handed to the code loader. */
  #bundleHandedAhead(handed: Promise<UnpackedBundle>): Promise<void> {
    this.#failOnRejection(handed, 'could not load the function bundle');
    return handed.then(({ entries, bytes, ms }) => {
      this.log.info({ artifactFile: this.settings.artifactFile, entries, bytes, ms }, 'artifact from the node cache unpacked and handed over before the agent loaded');
      if (!this.#settled) this.#awaitPoll();
    });
  }

  #instructLoader(instruction: LoaderInstruction): void {
    if (!this.#settled) this.#user?.stdin?.write(`${JSON.stringify(instruction)}\n`);
  }

  #loadCode(bundlePath: string, ahead = false): void {
    if (this.#settled || !this.#user?.stdin) return;
    this.#instructLoader(ahead ? { bundle: bundlePath, ahead } : { bundle: bundlePath });
    this.#awaitPoll();
  }

  /** The code, told its bundle, has a while to ask for its invocation. */
  #awaitPoll(): void {
    this.#timers.push(
      setTimeout(() => {
        if (!this.#polled) {
          this.#finish(
            failed(
              'WORKLOAD_ERROR',
              `The function code did not ask for its invocation within ${INVOCATION_LIMITS.loadTimeoutSeconds} s of starting; the entry file must call defineFn when it is imported`,
            ),
          );
        }
      }, INVOCATION_LIMITS.loadTimeoutSeconds * 1000),
    );
  }

  async #onUserExit(status: ExitStatus): Promise<void> {
    if (this.#settled) return;
    await this.#drainOutput();
    // A handler's process may die of its browser's death (an unhandled disconnect) before that death is noticed.
    if (this.#browserGone()) return this.#finish(failed('INTERNAL_ERROR', BROWSER_GONE));
    const detail = errorHeadline(this.#logs.lastError());
    const message = this.#polled
      ? `The function process ${describeExit(status)} before returning a result`
      : `The function code failed to load: its process ${describeExit(status)} before asking for its invocation`;
    this.#finish(failed('WORKLOAD_ERROR', detail ? `${message}: ${detail}` : message));
  }

  async #serve(
    input: Promise<InvocationInput>,
    browser: Promise<LeasedBrowser>,
    recorder: Promise<SessionRecorder>,
  ): Promise<ServedInvocation> {
    const [invocation, leased, attached] = await Promise.all([input, browser, recorder]);
    if (this.#settled) throw new Error('invocation already ended');
    // Before the handler has the browser: kept, every page it opens is recorded from its start; not kept, none is.
    this.#recording = await keepRecording(this.#preparedRecording!, attached, invocation);
    if (this.#settled) throw new Error('invocation already ended');
    this.#startedAt = new Date();
    this.log.info('invocation handed to the function code');
    this.#timers.push(setTimeout(() => this.#openLiveChannel(leased), LIVE_CHANNEL_DELAY_MS));
    const timeoutMs = invocation.timeoutSeconds * 1000;
    this.#timers.push(
      setTimeout(() => this.#finish(failed('TIMED_OUT', `The function did not finish within ${invocation.timeoutSeconds} seconds`)), timeoutMs),
    );
    return {
      requestId: invocation.invocationId,
      deadlineMs: this.#startedAt.getTime() + timeoutMs,
      event: {
        functionName: invocation.functionName,
        params: invocation.params,
        context: {
          session: { id: invocation.sessionId, connectUrl: leased.wsEndpoint },
          invocation: { id: invocation.invocationId, region: invocation.region },
          secrets: invocation.secrets,
        },
      },
    };
  }

  #openLiveChannel(leased: LeasedBrowser): void {
    if (this.#settled) return;
    const { controlUrl, namespace, podName, podToken } = this.settings;
    this.#liveChannel = LiveChannel.open({
      controlUrl,
      namespace,
      podName,
      podToken,
      wsEndpoint: leased.wsEndpoint,
      metrics: () => redactDeep(this.#sampler.snapshot(), this.#redact),
      log: this.log,
    });
  }

  #onRuntimeReport(report: RuntimeReport): void {
    if (!this.#settled) this.#handlerReported = true;
    switch (report.kind) {
      case 'response':
        return this.#finish(resultOutcome(report.body));
      case 'error': {
        const error = parseErrorReport(report.body);
        // A handler failing because its browser was killed may report before the browser's exit
        // is noticed: the browser's state decides whose fault it was.
        if (this.#browserGone()) return this.#finish(failed('INTERNAL_ERROR', BROWSER_GONE), error.stack);
        return this.#finish(failed('WORKLOAD_ERROR', error.message), error.stack);
      }
      case 'init-error': {
        const error = parseErrorReport(report.body);
        return this.#finish(failed('WORKLOAD_ERROR', `The function failed to initialize: ${error.message}`), error.stack);
      }
      case 'too-large':
        return this.#finish(
          failed(
            'WORKLOAD_ERROR',
            report.route === 'response'
              ? `The handler's result is larger than ${report.limitBytes} bytes as JSON; return less data`
              : `The handler failed and its error report is larger than ${report.limitBytes} bytes`,
          ),
        );
    }
  }

  /** The local browser is dead or dying (a sidecar has no pid here: its `exited` alone tells). */
  #browserGone(): boolean {
    const pid = this.#browser?.pid;
    return pid !== undefined && !processLives(pid);
  }

  #finish(outcome: InvocationOutcome, errorLog?: string): void {
    if (this.#settled) return;
    // Code loaded ahead fails the invocation that claims the member, as it would have failed in a
    // cold pod; the member waits for it, rather than end and have its pool start one that fails alike.
    // Its code's process is killed now: code that never finished loading would run on for as long as
    // the member waits.
    if (!this.#claimedAt && this.#loadsCodeAhead && outcome.phase === 'FAILED' && outcome.cause.code === 'WORKLOAD_ERROR') {
      this.#codeFailure ??= { outcome, errorLog };
      this.#onCodeFailure();
      void this.#killUser();
      return;
    }
    this.#settled = true;
    this.#endedAt = new Date();
    if (errorLog) this.#logs.add('error', errorLog);
    this.#resolveOutcome(outcome);
  }

  #failOnRejection(promise: Promise<unknown>, what: string): void {
    promise.catch((error: Error) => {
      if (!this.#settled) this.log.error({ err: error }, what);
      this.#finish(failed('INTERNAL_ERROR', `${what}: ${error.message}`));
    });
  }

  /**
   * Stops the user code: its process is frozen (SIGKILLed when its handler has not reported), so
   * nothing of it runs on, and its console output is complete. The kernel's work of a process's
   * exit is not waited for: what is frozen is killed at tearDown(), and the agent exits once
   * everything is gone.
   */
  async #stopUserCode(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#liveChannel?.close();
    this.#prepared?.launchAbort.abort();
    // The handler's report came over the runtime API after everything it wrote was in the pipes
    // (Node writes to pipes synchronously on Linux, console to the channel with writeSync), so
    // the frozen process's pipes need not close. But the report may be read first in a turn of the
    // event loop whose other reads include those pipes: one turn later, they have been read too.
    // A killed process's output drains to the end.
    if (this.#handlerReported) {
      this.#user?.freeze();
      await new Promise((resolve) => setImmediate(resolve));
      this.#userOutput?.flush();
    } else {
      void this.#killUser();
      await this.#drainOutput();
    }
  }

  /**
   * Ends the browser's part of the session: its last frames recorded, the recorder stopped and the
   * browser frozen (or released, when it cannot be), and the session's CDP events collected.
   */
  async #closeBrowserSession(): Promise<SessionLogEntry[]> {
    // A page left before its first frame gets one now, while the browser runs.
    if (this.#recording) await settledWithin(this.#recording.paintUnpaintedPages(), RECORDING_END_WAIT_MS);
    // A started recorder stops while the browser still answers, but a browser that does not answer
    // is not waited on.
    const stopping = this.#recorder?.stop();
    let recorderStopped = this.#recorderStart === undefined;
    if (stopping) {
      await settledWithin(stopping.then(() => (recorderStopped = true)), RECORDING_END_WAIT_MS);
    }
    // A recorder still connecting or stopping would wait on a frozen browser for ever: that browser
    // is killed now. A launch still under way was aborted above, which kills what it started.
    if (this.#browser?.freeze && recorderStopped) this.#browser.freeze();
    else if (this.#browser) void this.#releaseBrowser(this.#browser);
    // A recorder still connecting fails or finishes now that the browser is killed.
    return await (stopping ?? settledValue(this.#recorderStart).then((recorder) => (recorder ? recorder.stop() : [])));
  }

  #killUser(): Promise<void> | undefined {
    this.#userGone ??= this.#user?.kill();
    return this.#userGone;
  }

  #releaseBrowser(leased: LeasedBrowser): Promise<void> {
    this.#browserRelease ??= leased.release();
    return this.#browserRelease;
  }

  /** After the report: kills what is frozen, and resolves once every process of the session is gone. */
  tearDown(): Promise<void> {
    // The runtime API serves only the killed user process: closing it (its sockets close as that process is freed) waits until now too.
    this.#teardown ??= Promise.all([
      this.#killUser(),
      settledValue(this.#browserLaunch).then((leased) => leased && this.#releaseBrowser(leased)),
      this.#prepared?.api.close(),
      settledValue(this.#sessionProxyStart).then((proxy) => proxy?.close()),
    ]).then(() => undefined);
    this.#teardown.catch(() => undefined);
    return this.#teardown;
  }

  async #drainOutput(): Promise<void> {
    if (this.#userOutput) await settledWithin(this.#userOutput.ended, INVOCATION_LIMITS.outputDrainMs);
  }

  #report(outcome: InvocationOutcome): InvocationReport {
    const report: InvocationReport = {
      kind: 'invocation',
      phase: outcome.phase,
      startedAt: (this.#startedAt ?? this.#claimedAt ?? this.#agentStartedAt).toISOString(),
      endedAt: (this.#endedAt ?? new Date()).toISOString(),
      logs: redactDeep(this.#logs.entries(), this.#redact),
    };
    if (outcome.phase === 'COMPLETED') {
      if (outcome.results !== undefined) report.results = redactDeep(outcome.results, this.#redact);
    } else {
      report.cause = { code: outcome.cause.code, message: this.#redact(outcome.cause.message) };
    }
    return report;
  }
}

interface Prepared {
  layout: PodLayout;
  api: RuntimeApiServer;
  /** Gives up the browser's launch while it is under way. */
  launchAbort: AbortController;
  /** Browser, recorder and user process up (the runtime packages loaded). */
  ready: Promise<void>;
  /** The user process exists (it can be handed its bundle). */
  userStarted: Promise<void>;
  /** The code loader has been told the browser's address. */
  browserTold: Promise<void>;
  /** A member loading its code ahead (#loadCodeAhead): once its loader has the bundle and the browser. The invocation only has to be handed over. */
  codeAhead: Promise<void> | undefined;
  /** Hands the runtime API the invocation, once known. */
  setInput(input: Promise<InvocationInput>): void;
}

async function settledValue<T>(promise: Promise<T> | undefined): Promise<T | undefined> {
  if (!promise) return undefined;
  try {
    return await promise;
  } catch {
    return undefined;
  }
}

