// An HTTP endpoint that holds requests open until the test releases them, so a test can keep an
// invocation running for exactly as long as it needs to.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldServer {
  url: string;
  /** Resolves when `count` requests have arrived in all. */
  arrived(count: number): Promise<void>;
  /** How many requests have arrived. */
  seen(): number;
  /** Answers the held requests and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldServer(): Promise<HoldServer> {
  const held: ServerResponse[] = [];
  let released = false;
  let seen = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    seen += 1;
    for (const w of waiters.filter((w) => seen >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (released) res.end('released');
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    arrived: (count) => (seen >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    release() {
      released = true;
      for (const res of held.splice(0)) res.end('released');
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
