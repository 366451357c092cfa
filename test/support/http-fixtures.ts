// A local page for handlers to visit.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

export async function startPageServer(routes: Record<string, string> = {}): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    // A route answers with or without a query string (pages loaded again as `?load=1`).
    const url = req.url ?? '/';
    const body = routes[url] ?? routes[url.split('?')[0]] ?? `<!doctype html><html><head><title>Test page ${req.url}</title></head><body><h1>Hello</h1><script>console.log('page script ran')</script></body></html>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
