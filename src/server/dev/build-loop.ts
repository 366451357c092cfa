// The dev server's builds: one at a time, changes during a build make one more after it; each
// result printed (a failure with its cause, saying whether the last good build is still served).
import type { DevPublisher } from './dev-publisher.js';

export interface BuildLoop {
  /** A build for this reason, now or after the one under way. */
  request(why: string): void;
  /** No more builds, and nothing more printed. */
  close(): void;
}

export function buildLoop(publisher: DevPublisher, out: (line: string) => void): BuildLoop {
  let running: Promise<void> | undefined;
  let again: string | undefined;
  let closed = false;
  const run = async (why: string): Promise<void> => {
    out(`Building (${why})…`);
    const started = performance.now();
    const result = await publisher.publish();
    if (closed) return;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (result.ok) out(`Build ${result.buildId} ready in ${seconds} s: ${result.functions.join(', ') || 'no Functions defined'}`);
    else out(`Build failed in ${seconds} s; ${publisher.unavailable === undefined ? 'still serving the last good build' : 'nothing to serve yet'}:\n${indent(result.why)}`);
  };
  const loop = async (why: string) => {
    await run(why);
    while (again !== undefined && !closed) {
      const next = again;
      again = undefined;
      await run(next);
    }
    running = undefined;
  };
  return {
    request(why: string) {
      if (closed) return;
      if (running) again = why;
      else running = loop(why);
    },
    close: () => {
      closed = true;
    },
  };
}

const indent = (text: string) => text.split('\n').map((line) => `  | ${line}`).join('\n');
