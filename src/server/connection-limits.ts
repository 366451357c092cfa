// Bounds on the façade's connections. A client that opens thousands of connections and sends each
// a partial request (a slowloris) holds them until the headers time out; unbounded, it takes every
// file descriptor of the process, which the store, the pods and every other client need.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';

/** Descriptors kept for everything but the façade's connections: the store, pods' pipes, watches. */
const RESERVED_DESCRIPTORS = 2048;

/**
 * At most `perClient` connections from one address (0: no limit); more are closed at once. Behind a
 * proxy every connection comes from it, so BROWSERFN_TRUST_PROXY turns this off by default. And never
 * so many connections in all that the process runs out of descriptors.
 */
export function limitConnections(server: Server, perClient: number): void {
  const descriptors = openFilesLimit();
  if (descriptors !== undefined) server.maxConnections = Math.max(64, descriptors - RESERVED_DESCRIPTORS);
  if (perClient <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    // Connections another listener handed over (a pod's own entrance, pod-entrances.ts) are bounded there.
    const own = server.address();
    if (own && typeof own === 'object' && socket.localPort !== own.port) return;
    const client = socket.remoteAddress ?? '';
    const count = (open.get(client) ?? 0) + 1;
    if (count > perClient) {
      socket.destroy();
      return;
    }
    open.set(client, count);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}

/** The process's soft limit of open files, where /proc tells it. */
function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}
