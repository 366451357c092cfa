// Waiting on work that may never end, when the agent must go on regardless: its build's steps at a
// deadline, its session's output and recorder at the session's end.

/** Resolves once `work` has settled (its outcome ignored), or after `ms`, whichever comes first. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
