// rrweb DOM events of every page: @rrweb/record runs in an isolated world of each new top-level
// document (so page scripts can neither see nor feed it) and hands each event to a CDP binding that
// only that world has. Pages that close before they load or block scripts just give fewer events.
//
// An isolated world has no custom element registry (`customElements` is null there), and rrweb asks
// it about every element it serializes, in a try/catch: one TypeError thrown and caught per element
// made a 30 000-element page load in 7-10 s recorded against 2-3 s with rrweb in the main world. The
// world gets a registry of its own that names custom elements by their name (only those have a
// hyphen), which is what rrweb's replayer needs them marked for.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StoredRrwebEvent } from '../../schemas/recording.js';
import type { PageInstrument, PageTarget } from './page-instrument.js';

const WORLD = '__browserfn_recording';
const BINDING = '__browserfnRrwebEmit';

let cachedSource: string | undefined;

/** The injected script: the rrweb UMD bundle, then record() emitting through the binding. */
function recorderSource(): string {
  if (cachedSource) return cachedSource;
  // The package exports only its module entries; the browser bundle sits beside them.
  const bundle = readFileSync(join(dirname(createRequire(import.meta.url).resolve('@rrweb/record')), 'record.umd.min.cjs'), 'utf8');
  cachedSource = `(function () {
  if (window !== window.top || globalThis.${BINDING}Started) return;
  globalThis.${BINDING}Started = true;
  if (!globalThis.customElements) {
    Object.defineProperty(globalThis, 'customElements', { configurable: true, value: { get: (name) => (String(name).includes('-') ? HTMLElement : undefined) } });
  }
  (function () { var exports, module, define;
${bundle}
  }).call(globalThis);
  const emit = globalThis.${BINDING};
  globalThis.rrwebRecord.record({
    emit: (event) => { try { emit(JSON.stringify(event)); } catch (e) {} },
    sampling: { mousemove: 100, scroll: 150, input: 'last' },
    recordCanvas: false,
    collectFonts: false,
  });
})();`;
  return cachedSource;
}

export interface RrwebOptions {
  /** Takes an event's serialized size; false once the size cap is reached (the event is dropped). */
  admit: (chars: number) => boolean;
}

export class RrwebCapture implements PageInstrument {
  readonly #events: StoredRrwebEvent[] = [];
  /** The identifier of the script added to each page (by CDP session), for its withdrawal. */
  readonly #scripts = new Map<string, string>();

  constructor(private readonly options: RrwebOptions) {}

  async attach(page: PageTarget): Promise<void> {
    const [, added] = await Promise.all([
      page.send('Runtime.addBinding', { name: BINDING, executionContextName: WORLD }),
      page.send('Page.addScriptToEvaluateOnNewDocument', { source: recorderSource(), worldName: WORLD }) as Promise<{ identifier: string }>,
    ]);
    this.#scripts.set(page.sessionId, added.identifier);
  }

  async withdraw(page: PageTarget): Promise<void> {
    const identifier = this.#scripts.get(page.sessionId);
    this.#scripts.delete(page.sessionId);
    await Promise.all([
      page.send('Runtime.removeBinding', { name: BINDING }),
      identifier === undefined ? undefined : page.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }),
    ]);
  }

  onPageEvent(page: PageTarget, method: string, params: Record<string, unknown>): void {
    if (method !== 'Runtime.bindingCalled' || params.name !== BINDING || typeof params.payload !== 'string') return;
    if (!this.options.admit(params.payload.length)) return;
    try {
      const event = JSON.parse(params.payload) as { type?: unknown; data?: unknown; timestamp?: unknown };
      if (typeof event.type !== 'number' || typeof event.timestamp !== 'number') return;
      const data = typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : {};
      this.#events.push({ type: event.type, data, timestamp: event.timestamp, pageId: page.targetId });
    } catch {
      // Not an rrweb event.
    }
  }

  detach(page: PageTarget): void {
    this.#scripts.delete(page.sessionId);
  }

  /** Ends the events with a custom event (rrweb type 5) marking where the size cap cut them. */
  markCut(tag: string, payload: Record<string, unknown>, atMs: number, pageId: string): void {
    this.#events.push({ type: 5, data: { tag, payload }, timestamp: atMs, pageId });
  }

  events(): StoredRrwebEvent[] {
    return [...this.#events].sort((a, b) => a.timestamp - b.timestamp);
  }
}
