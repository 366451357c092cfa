// Bounds of the artifact a browser pod unpacks (a build's tar.gz), apart from the invocation's
// limits (limits.ts, which load the recorder's): a cold pod unpacks it before the agent's code has
// loaded (head-start.ts).

/** Builds keep artifacts far smaller; these bound what a corrupted or forged one can do to the pod's disk. */
export const ARTIFACT_LIMITS = {
  maxArchiveBytes: 256 * 1024 * 1024,
  maxExtractedBytes: 1024 * 1024 * 1024,
  maxEntries: 200_000,
} as const;
