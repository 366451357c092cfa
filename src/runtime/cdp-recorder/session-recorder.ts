// Records a browser session over CDP for later inspection: console messages, page exceptions,
// network requests/responses/failures and navigation/load events of every page, attached at
// browser level (flattened sessions), so pages opened by any client are covered from their start.
import CDP from 'chrome-remote-interface';

import { OUTCOME_LIMITS, reportedBytesWithParams } from '../../schemas/report-limits.js';
import type { SessionLogEntry } from '../../schemas/reports.js';
import type { PageInstrument, PageTarget } from './page-instrument.js';

export type { SessionLogEntry };

export interface RecorderLimits {
  maxEntries: number;
  /** Events kept, as the report counts them (their JSON): the first ones, so what is kept is what is reported. */
  maxTotalBytes: number;
  /** Params of one event serialized longer than this are replaced by a preview. */
  maxParamsChars: number;
}

/** Left in the report's cap for the marker that counts the events not kept. */
const MARKER_ROOM_BYTES = 512;

export const DEFAULT_RECORDER_LIMITS: RecorderLimits = { maxEntries: 2000, maxTotalBytes: OUTCOME_LIMITS.sessionLogsBytes - MARKER_ROOM_BYTES, maxParamsChars: 8 * 1024 };

export const RECORDED_EVENTS: ReadonlySet<string> = new Set([
  'Runtime.consoleAPICalled',
  'Runtime.exceptionThrown',
  'Network.requestWillBeSent',
  'Network.responseReceived',
  'Network.loadingFinished',
  'Network.loadingFailed',
  'Page.frameNavigated',
  'Page.navigatedWithinDocument',
  'Page.domContentEventFired',
  'Page.loadEventFired',
  'Page.javascriptDialogOpening',
]);

const PREVIEW_CHARS = 1024;

interface AttachedToTarget {
  sessionId: string;
  targetInfo: { targetId: string; type: string };
  waitingForDebugger: boolean;
}

export class SessionRecorder {
  readonly #client: CDP.Client;
  readonly #limits: RecorderLimits;
  readonly #entries: SessionLogEntry[] = [];
  /** Page targets by session, each with the promise of its domains enabled. */
  readonly #pages = new Map<string, { page: PageTarget; ready: Promise<void> }>();
  readonly #instruments: PageInstrument[] = [];
  #totalBytes = 0;
  #dropped = 0;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  readonly #instrumenting = new Set<Promise<void>>();

  private constructor(client: CDP.Client, limits: RecorderLimits) {
    this.#client = client;
    this.#limits = limits;
  }

  /**
   * Connects to the browser endpoint; resolves once auto-attach is on. New pages then wait for the
   * recorder before they run; the pages already open are instrumented in the background, so the
   * handler's start is not held up (it must connect over CDP itself before it can drive one).
   */
  static async start(wsEndpoint: string, limits: RecorderLimits = DEFAULT_RECORDER_LIMITS): Promise<SessionRecorder> {
    // An empty protocol descriptor: the recorder only uses raw send/events, and building the typed
    // API from the full descriptor costs a few hundred milliseconds before the first invocation.
    const client = await CDP({ target: wsEndpoint, protocol: { domains: [] } as unknown as CDP.Protocol });
    const recorder = new SessionRecorder(client, limits);
    client.on('event', (message: CDP.EventMessage) => {
      const pending = recorder.#onEvent(message);
      if (pending) recorder.#track(pending);
    });
    await client.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    return recorder;
  }

  /**
   * Adds an instrument: pages attached from now on get it before they run, the pages already open
   * get it in the background (the caller is not held up).
   */
  addInstrument(instrument: PageInstrument): void {
    if (this.#stopped) return;
    this.#instruments.push(instrument);
    for (const { page, ready } of this.#pages.values()) this.#track(ready.then(() => attachQuietly(instrument, page), () => undefined));
  }

  /**
   * Takes an instrument off every page again, what it set up in them undone; resolves once it is.
   * Pages attached from now on do not get it.
   */
  async removeInstrument(instrument: PageInstrument): Promise<void> {
    const index = this.#instruments.indexOf(instrument);
    if (index < 0) return;
    this.#instruments.splice(index, 1);
    // Attaches still under way finish first, so none sets the instrument up after its withdrawal.
    await this.settled();
    await Promise.all([...this.#pages.values()].map(({ page }) => instrument.withdraw?.(page).catch(() => undefined)));
  }

  /** Resolves once every page attached so far is instrumented. */
  async settled(): Promise<void> {
    while (this.#instrumenting.size > 0) await Promise.all([...this.#instrumenting]);
  }

  /**
   * Stops recording and returns what was recorded, ending with a marker when limits dropped events.
   * What the browser sent before it answered one last command still counts (a page's last frames):
   * it sends everything over this one socket in order. The socket is closed without waiting for
   * the browser's side of the close (2-4 ms at a session's end), which a frozen browser never sends.
   */
  async stop(): Promise<SessionLogEntry[]> {
    this.#stopping ??= this.#client
      .send('Browser.getVersion' as never)
      .catch(() => undefined)
      .then(() => {
        this.#stopped = true;
        this.#client.close().catch(() => undefined);
      });
    await this.#stopping;
    const entries = [...this.#entries];
    if (this.#dropped > 0) {
      entries.push({
        method: 'browserfn.sessionLogTruncated',
        timestamp: Date.now(),
        params: { droppedEvents: this.#dropped, maxEntries: this.#limits.maxEntries, maxTotalBytes: this.#limits.maxTotalBytes },
      });
    }
    return entries;
  }

  #track(pending: Promise<void>): void {
    const tracked: Promise<void> = pending.finally(() => this.#instrumenting.delete(tracked));
    this.#instrumenting.add(tracked);
  }

  #onEvent(message: CDP.EventMessage): Promise<void> | undefined {
    if (this.#stopped) return undefined;
    if (message.method === 'Target.attachedToTarget') return this.#instrument(message.params as AttachedToTarget);
    if (message.method === 'Target.detachedFromTarget') {
      const sessionId = (message.params as { sessionId: string }).sessionId;
      const page = this.#pages.get(sessionId)?.page;
      this.#pages.delete(sessionId);
      if (page) for (const instrument of this.#instruments) instrument.detach(page);
      return undefined;
    }
    const page = message.sessionId ? this.#pages.get(message.sessionId)?.page : undefined;
    if (page) for (const instrument of this.#instruments) instrument.onPageEvent(page, message.method, message.params as Record<string, unknown>);
    if (RECORDED_EVENTS.has(message.method)) this.#record(message);
    return undefined;
  }

  async #instrument(attached: AttachedToTarget): Promise<void> {
    const { sessionId, targetInfo } = attached;
    const send = (method: string, params: object = {}) =>
      (this.#client.send as (method: string, params: object, sessionId: string) => Promise<unknown>)(method, params, sessionId);
    // Targets wait for every auto-attached client before they run. The page's set-up is sent first
    // and its release right after, without waiting for answers: a page opened without an opener (a
    // link's target=_blank) has no renderer until it runs, and answers nothing before that; the
    // browser keeps a session's commands in order, so the set-up still comes before the page runs.
    const setUp: Promise<unknown>[] = [];
    if (targetInfo.type === 'page') {
      const page: PageTarget = { targetId: targetInfo.targetId, sessionId, send };
      // Instruments added from now on attach to this page themselves, once it is ready.
      const instruments = [...this.#instruments];
      const ready = Promise.all([send('Runtime.enable'), send('Network.enable'), send('Page.enable')]).then(() => undefined);
      this.#pages.set(sessionId, { page, ready });
      // Each instrument sends its commands as it is called (attachQuietly: none fails the page).
      setUp.push(ready, ...instruments.map((instrument) => attachQuietly(instrument, page)));
    }
    if (attached.waitingForDebugger) setUp.push(send('Runtime.runIfWaitingForDebugger'));
    // A target that went away while being set up leaves nothing to wait for.
    await Promise.all(setUp.map((pending) => pending.catch(() => undefined)));
  }

  #record(message: CDP.EventMessage): void {
    if (this.#entries.length >= this.#limits.maxEntries) {
      this.#dropped += 1;
      return;
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    const serialized = JSON.stringify(params);
    let kept: unknown = params;
    let keptJson = serialized;
    if (serialized.length > this.#limits.maxParamsChars) {
      kept = { truncated: true, originalChars: serialized.length, preview: serialized.slice(0, PREVIEW_CHARS) };
      keptJson = JSON.stringify(kept);
    }
    const frame = params.frame as { id?: string; loaderId?: string } | undefined;
    const entry: SessionLogEntry = { method: message.method, timestamp: Date.now(), params: kept };
    const pageId = message.sessionId ? this.#pages.get(message.sessionId)?.page.targetId : undefined;
    if (pageId) entry.pageId = pageId;
    if (message.sessionId) entry.sessionId = message.sessionId;
    const frameId = typeof params.frameId === 'string' ? params.frameId : frame?.id;
    if (frameId) entry.frameId = frameId;
    const loaderId = typeof params.loaderId === 'string' ? params.loaderId : frame?.loaderId;
    if (loaderId) entry.loaderId = loaderId;
    const bytes = reportedBytesWithParams(entry, keptJson);
    if (this.#totalBytes + bytes > this.#limits.maxTotalBytes) {
      this.#dropped += 1;
      return;
    }
    this.#totalBytes += bytes;
    this.#entries.push(entry);
  }
}

/** An instrument that cannot set a page up leaves it unrecorded; the page runs all the same. */
async function attachQuietly(instrument: PageInstrument, page: PageTarget): Promise<void> {
  await instrument.attach(page).catch(() => undefined);
}
