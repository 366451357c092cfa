// WebSocket upgrades of the façade (Koa serves none): a browser pod's live-view channel
// (/internal/v1/pods/{ns}/{pod}/live, pod token), viewers' CDP connections
// (/v1/sessions/{id}/live/{token}/devtools/page/{target} or …/devtools/browser, live token), and
// those another API replica relays to a channel held here (/internal/v1/live/{id}/ws?path=…,
// replica token). Every other upgrade is refused.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ApiDeps } from '../deps.js';
import { errorBody, HttpError, toHttpError } from '../http-error.js';
import { authorizePod } from '../routes/internal/pod-access.js';
import { isTerminal } from '../../functions/invocations.js';
import { isRelayableWsPath, LIVE_CHANNEL_SUFFIX } from '../../schemas/live-channel.js';
import { MAX_LIVE_FRAME_BYTES } from './live-channel.js';
import type { LiveLocator } from './live-locator.js';
import { authorizeReplica, authorizeViewer, type LiveViewer } from './live-access.js';

const POD_CHANNEL = new RegExp(`^/internal/v1/pods/([^/]{1,63})/([^/]{1,253})${LIVE_CHANNEL_SUFFIX}$`);
const VIEWER = /^\/v1\/sessions\/([0-9a-fA-F-]{36})\/live\/([A-Za-z0-9_.-]{1,1024})(\/devtools\/.*)$/;
const REPLICA = /^\/internal\/v1\/live\/([0-9a-fA-F-]{36})\/ws$/;

/** Ends every upgraded connection and refuses new ones: server.close() waits for them, closeAllConnections() leaves them alone. */
export interface LiveViewUpgrades {
  closeAll(): void;
}

export function acceptLiveViewUpgrades(server: Server, locator: LiveLocator, deps: ApiDeps): LiveViewUpgrades {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_LIVE_FRAME_BYTES, perMessageDeflate: false });
  // Upgrades still being authorized when the server stops included: they would attach afterwards.
  const upgraded = new Set<Duplex>();
  let closing = false;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (closing) return void socket.destroy();
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    upgrade(req, socket, head).catch((err: unknown) => {
      const known = toHttpError(err);
      if (!known) deps.log.error({ err, path: req.url }, 'live-view upgrade failed');
      refuse(socket, known ?? new HttpError(500, 'Internal error; the server log has details'));
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const pod = POD_CHANNEL.exec(path);
    if (pod) {
      const [namespace, name] = [decodeURIComponent(pod[1]!), decodeURIComponent(pod[2]!)];
      const owner = await authorizePod({ get: (field: string) => headerOf(req, field) }, { namespace, name }, deps);
      if (owner.kind !== 'invocation') throw new HttpError(400, 'Only browser pods open a live-view channel');
      if (isTerminal(owner.invocation)) throw new HttpError(409, `The invocation of pod ${name} has ended`);
      sockets.handleUpgrade(req, socket, head, (ws) => {
        locator.hub.attach(namespace, owner.invocation.spec.sessionId, ws);
        void locator.attached(owner.invocation);
      });
      return;
    }
    const replica = REPLICA.exec(path);
    if (replica) {
      const target = url.searchParams.get('path') ?? '';
      const viewer = authorizeReplica(locator.hub, deps, replica[1]!, headerOf(req, 'authorization'));
      if (!isRelayableWsPath(target)) throw new HttpError(404, `No WebSocket endpoint at ${target}`);
      return relay(viewer, target);
    }
    const viewer = VIEWER.exec(path);
    if (!viewer || !isRelayableWsPath(viewer[3]!)) throw new HttpError(404, `No WebSocket endpoint at ${path}`);
    relay(await authorizeViewer(locator, deps, viewer[1]!, viewer[2]!), viewer[3]!);

    function relay({ claims, channel }: LiveViewer, target: string): void {
      sockets.handleUpgrade(req, socket, head, (ws) => channel.relay(ws, target, { viewOnly: claims.viewOnly, expiresAtMs: claims.exp }));
    }
  }

  return {
    closeAll() {
      closing = true;
      for (const socket of upgraded) socket.destroy();
    },
  };
}

function headerOf(req: IncomingMessage, field: string): string {
  const value = req.headers[field.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function refuse(socket: Duplex, error: HttpError): void {
  const body = JSON.stringify(errorBody(error.status, error.message));
  socket.end(`HTTP/1.1 ${error.status} ${errorBody(error.status, '').error}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
