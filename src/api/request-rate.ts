// Each project's share of the façade's event loop: a token bucket of API requests per project
// (BROWSERFN_API_RATE_PER_PROJECT a second, ten seconds' worth at once). Without it one project's
// flood, from outside or from its own pool members' top-level code through their pods' entrances,
// took the loop that every other project's requests and every pod's reports wait on (a probe's
// 500 requests a second made another project's warm starts 3.5x slower). Past it a project gets
// 429 with Retry-After, which the public clients wait out and retry.
import { HttpError } from './http-error.js';

/** How many seconds' worth of requests a project may make at once. */
const BURST_SECONDS = 10;

export class ProjectRequestRate {
  readonly #buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(
    /** Requests a second each project may make; 0: no limit. */
    private readonly perSecond: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  /** Counts one request of `project`; throws a 429 saying when to try again once its bucket is empty. */
  take(project: string): void {
    if (this.perSecond <= 0) return;
    const now = this.nowMs();
    const burst = this.perSecond * BURST_SECONDS;
    const bucket = this.#buckets.get(project) ?? { tokens: burst, atMs: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.atMs) / 1000) * this.perSecond);
    bucket.atMs = now;
    this.#buckets.set(project, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const waitSeconds = Math.ceil((1 - bucket.tokens) / this.perSecond);
    throw new HttpError(
      429,
      `Too many requests: project ${project} may make ${this.perSecond} API requests a second (BROWSERFN_API_RATE_PER_PROJECT), ${burst} at once; try again in ${waitSeconds} s`,
      {},
      { 'retry-after': String(waitSeconds) },
    );
  }
}
