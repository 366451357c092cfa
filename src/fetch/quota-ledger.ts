// Per-project, per-format quotas over fixed windows (BROWSERFN_FETCH_QUOTAS). A fetch reserves one
// unit before it starts and gives it back if it fails, so concurrent fetches cannot overrun a
// quota and only delivered results count. Counts live in this process's memory.
import type { FetchFormat, QuotaRule } from './settings.js';

interface Window {
  startedAt: number;
  used: number;
}

export interface QuotaReservation {
  /** Gives the unit back (the fetch failed). */
  refund(): void;
}

export type QuotaDecision = { ok: true; reservation: QuotaReservation } | { ok: false; limit: number; resetsAt: number };

export class QuotaLedger {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly rules: QuotaRule[],
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The most specific rule: project and format named, then either one, then `*:*`. */
  limitFor(project: string, format: FetchFormat): number | undefined {
    const score = (r: QuotaRule): number => (r.project === project ? 2 : 0) + (r.format === format ? 1 : 0);
    const matching = this.rules.filter((r) => (r.project === project || r.project === '*') && (r.format === format || r.format === '*'));
    if (matching.length === 0) return undefined;
    return matching.sort((a, b) => score(b) - score(a))[0].limit;
  }

  reserve(project: string, format: FetchFormat): QuotaDecision {
    const limit = this.limitFor(project, format);
    if (limit === undefined) return { ok: true, reservation: { refund: () => undefined } };
    const key = `${project}\u0000${format}`;
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, used: 0 };
      this.windows.set(key, window);
    }
    if (window.used >= limit) return { ok: false, limit, resetsAt: window.startedAt + this.windowMs };
    window.used++;
    const reserved = window;
    let refunded = false;
    return {
      ok: true,
      reservation: {
        refund: () => {
          if (refunded) return;
          refunded = true;
          if (this.windows.get(key) === reserved && reserved.used > 0) reserved.used--;
        },
      },
    };
  }
}
