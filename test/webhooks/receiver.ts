// A webhook receiver on 127.0.0.1: keeps every delivery it gets (raw body and headers) and answers
// with the status the test chooses per request; tests wait for deliveries by predicate.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The status it was answered with. */
  answered: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Chooses the status of each request (default 200). */
  answer(choose: (req: Omit<Received, 'answered'>) => number): void;
  /** Resolves with the deliveries received so far once `done` holds for them. */
  until(what: string, done: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let choose: (req: Omit<Received, 'answered'>) => number = () => 200;
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString('utf8') };
      const status = choose(request);
      received.push({ ...request, answered: status });
      res.statusCode = status;
      res.end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer(next) {
      choose = next;
    },
    until(what, done, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; received: ${received.map((r) => `${r.path} ${JSON.parse(r.body).type} ${r.answered}`).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
