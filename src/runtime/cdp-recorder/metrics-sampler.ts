// Samples the performance of every page the recorder attached to: Performance.getMetrics of each
// page at an interval, and each load's Navigation Timing entry (read with Runtime.evaluate once the
// load event fired). Memory stays bounded: past `maxSamples` the samples are thinned (every other
// one dropped, the interval doubled), past `maxNavigations` the oldest navigation goes.
import { emptySessionMetrics, thinSamples, type NavigationTiming, type SessionMetrics } from '../../schemas/session-metrics.js';
import type { PageInstrument, PageTarget, SendToPage } from './page-instrument.js';

export interface MetricsSamplerLimits {
  intervalMs: number;
  maxSamples: number;
  maxNavigations: number;
}

export const DEFAULT_SAMPLER_LIMITS: MetricsSamplerLimits = { intervalMs: 2000, maxSamples: 240, maxNavigations: 50 };

/** Serialized inside the page: the current document's navigation entry, if the page has one. */
const NAVIGATION_ENTRY = "JSON.stringify((performance.getEntriesByType('navigation')[0] || null))";

interface Page {
  pageId: string;
  send: SendToPage;
}

export class MetricsSampler implements PageInstrument {
  readonly #limits: MetricsSamplerLimits;
  readonly #pages = new Map<string, Page>();
  #metrics: SessionMetrics;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(limits: MetricsSamplerLimits = DEFAULT_SAMPLER_LIMITS) {
    this.#limits = limits;
    this.#metrics = emptySessionMetrics(limits.intervalMs);
  }

  /** A page the recorder instrumented; sampled from now on. */
  async attach({ sessionId, targetId, send }: PageTarget): Promise<void> {
    if (this.#stopped) return;
    this.#pages.set(sessionId, { pageId: targetId, send });
    await send('Performance.enable', { timeDomain: 'timeTicks' });
    this.#schedule();
  }

  detach({ sessionId }: PageTarget): void {
    this.#pages.delete(sessionId);
  }

  /** A load event of an attached page triggers a navigation entry and a sample of that page. */
  onPageEvent({ sessionId }: PageTarget, method: string): void {
    const page = this.#pages.get(sessionId);
    if (!page || this.#stopped || method !== 'Page.loadEventFired') return;
    void this.#readNavigation(page);
    void this.#sample(page);
  }

  /** What was sampled so far (a copy). */
  snapshot(): SessionMetrics {
    return structuredClone(this.#metrics);
  }

  stop(): SessionMetrics {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#pages.clear();
    return this.snapshot();
  }

  #schedule(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void Promise.all([...this.#pages.values()].map((page) => this.#sample(page))).finally(() => this.#schedule());
    }, this.#metrics.intervalMs);
    this.#timer.unref();
  }

  async #sample(page: Page): Promise<void> {
    const answer = (await page.send('Performance.getMetrics').catch(() => undefined)) as { metrics?: { name: string; value: number }[] } | undefined;
    if (!answer?.metrics || this.#stopped) return;
    const metrics: Record<string, number> = {};
    for (const { name, value } of answer.metrics) metrics[name] = value;
    this.#metrics.samples.push({ timestamp: Date.now(), pageId: page.pageId, metrics });
    if (this.#metrics.samples.length > this.#limits.maxSamples) this.#metrics = thinSamples(this.#metrics);
  }

  async #readNavigation(page: Page): Promise<void> {
    const answer = (await page.send('Runtime.evaluate', { expression: NAVIGATION_ENTRY, returnByValue: true, silent: true }).catch(() => undefined)) as
      | { result?: { value?: unknown } }
      | undefined;
    const raw = answer?.result?.value;
    if (typeof raw !== 'string' || this.#stopped) return;
    const timing = JSON.parse(raw) as Record<string, unknown> | null;
    if (!timing) return;
    const entry: NavigationTiming = { timestamp: Date.now(), pageId: page.pageId, url: typeof timing.name === 'string' ? timing.name : '', timing };
    this.#metrics.navigations.push(entry);
    if (this.#metrics.navigations.length > this.#limits.maxNavigations) {
      this.#metrics.navigations.shift();
      this.#metrics.dropped.navigations += 1;
    }
  }
}
