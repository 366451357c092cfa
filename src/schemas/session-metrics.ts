// Performance samples of a browser session (GET /v1/sessions/{id}/metrics): CDP Performance.getMetrics
// of every page at intervals, and each page load's Navigation Timing entry. The pod samples them, fits
// them to their cap and reports them with the outcome; the façade serves them as they are.

export interface MetricsSample {
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Target ID of the page. */
  pageId: string;
  /** Performance.getMetrics as name → value (durations in seconds, sizes in bytes, as CDP gives them). */
  metrics: Record<string, number>;
}

export interface NavigationTiming {
  timestamp: number;
  pageId: string;
  url: string;
  /** PerformanceNavigationTiming.toJSON() of the load (milliseconds relative to its time origin). */
  timing: Record<string, unknown>;
}

export interface SessionMetrics {
  /** How far apart the kept samples of one page are, at least (it doubles each time the samples are thinned). */
  intervalMs: number;
  samples: MetricsSample[];
  navigations: NavigationTiming[];
  /** Samples thinned out and navigation entries dropped (oldest first) to stay within the caps. */
  dropped: { samples: number; navigations: number };
}

export const emptySessionMetrics = (intervalMs: number): SessionMetrics => ({ intervalMs, samples: [], navigations: [], dropped: { samples: 0, navigations: 0 } });

/** Every other sample goes, the first kept: the whole session stays covered at half the resolution. */
export function thinSamples(metrics: SessionMetrics): SessionMetrics {
  const kept = metrics.samples.filter((_, index) => index % 2 === 0);
  return { ...metrics, intervalMs: metrics.intervalMs * 2, samples: kept, dropped: { ...metrics.dropped, samples: metrics.dropped.samples + metrics.samples.length - kept.length } };
}

/** Fits the metrics to `limitBytes` of JSON: samples are thinned first, then the oldest navigations dropped. */
export function capSessionMetrics(metrics: SessionMetrics, limitBytes: number): SessionMetrics {
  let fitted = metrics;
  const size = () => Buffer.byteLength(JSON.stringify(fitted));
  while (size() > limitBytes && fitted.samples.length > 1) fitted = thinSamples(fitted);
  while (size() > limitBytes && (fitted.navigations.length > 0 || fitted.samples.length > 0)) {
    if (fitted.navigations.length > 0) {
      fitted = { ...fitted, navigations: fitted.navigations.slice(1), dropped: { ...fitted.dropped, navigations: fitted.dropped.navigations + 1 } };
    } else {
      fitted = { ...fitted, samples: [], dropped: { ...fitted.dropped, samples: fitted.dropped.samples + fitted.samples.length } };
    }
  }
  return fitted;
}
