// What the live-view suites share: a Function that opens a page and waits, a minimal CDP client
// over a live URL's WebSocket, and how a refused upgrade answered.
import WebSocket from 'ws';

/** Opens `params.page`, then holds until `params.hold` answers; returns the page's title. */
export const LIVE_FN = `
import { defineFn } from 'browserfn';
import { chromium } from 'playwright-core';
defineFn('live', async (ctx, params: { page: string; hold: string }) => {
  const browser = await chromium.connectOverCDP(ctx.session.connectUrl);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(params.page);
  await fetch(params.hold);
  return { title: await page.title() };
});
`;

export interface CdpClient {
  send(method: string, params?: object): Promise<{ result?: any; error?: { message: string } }>;
  closed: Promise<number>;
  close(): void;
}

export async function cdp(url: string): Promise<CdpClient> {
  const socket = new WebSocket(url);
  const replies = new Map<number, (reply: any) => void>();
  let next = 1;
  socket.on('message', (data) => {
    const reply = JSON.parse(data.toString());
    if (typeof reply.id === 'number') replies.get(reply.id)?.(reply);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    send: (method, params = {}) => {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => replies.set(id, resolve));
    },
    closed,
    close: () => socket.close(),
  };
}

/** The socket address DevTools is given in a debuggerUrl (`ws=` without its scheme). */
export const pageSocketOf = (debuggerUrl: string): string => `ws://${new URL(debuggerUrl).searchParams.get('ws')}`;

/** How an upgrade is refused: the HTTP status of the answer. */
export function refusedStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('open', () => reject(new Error(`${url} was accepted`)));
    socket.once('error', () => undefined);
  });
}
