// How long a build pod and a browser pod may run. The controllers enforce these deadlines and the
// façade reports them as `expiresAt`, so they live below both.

/** A build that has not reported by then is failed as TIMED_OUT. */
export const BUILD_TIMEOUT_MS = 15 * 60 * 1000;

/** Extra time past the handler timeout for browser start-up and reporting. */
export const POD_GRACE_SECONDS = 60;
