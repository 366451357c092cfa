// The undici connector of the fetcher and of webhook deliveries. It resolves the host once, refuses the connection when any
// of its addresses is not allowed (address-policy.ts), and then connects to exactly the address it
// checked, so DNS rebinding between check and connect has nothing to rebind. Through a proxy it
// asks for a CONNECT tunnel to that same checked address. TLS is layered on top by undici's own
// connector (certificate checks, SNI, session reuse).
import { lookup } from 'node:dns/promises';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.js';

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface GuardedConnectorOptions {
  policy: AddressPolicy;
  resolve: Resolver;
  /** CONNECT proxy; undefined connects directly. */
  proxy?: URL;
  rejectUnauthorized: boolean;
  connectTimeoutMs: number;
}

/** Errors raised before any byte reaches the target, with what the fetcher needs to explain them. */
export class ConnectRefusedError extends Error {
  constructor(
    message: string,
    readonly reason: 'address' | 'dns' | 'connect' | 'proxy',
  ) {
    super(message);
    this.name = 'ConnectRefusedError';
  }
}

export function guardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const tls = buildConnector({ rejectUnauthorized: options.rejectUnauthorized, timeout: options.connectTimeoutMs });
  return (connectOptions, callback) => {
    openCheckedSocket(connectOptions, options).then(
      (socket) => {
        if (connectOptions.protocol !== 'https:') {
          callback(null, socket);
          return;
        }
        tls({ ...connectOptions, httpSocket: socket }, (err, tlsSocket) => {
          if (err) {
            socket.destroy();
            callback(err, null);
          } else callback(null, tlsSocket!);
        });
      },
      (err: Error) => callback(err, null),
    );
  };
}

async function openCheckedSocket(target: buildConnector.Options, options: GuardedConnectorOptions): Promise<Socket> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await options.resolve(host);
    } catch (err) {
      throw new ConnectRefusedError(`DNS lookup of ${host} failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'dns');
    }
    if (addresses.length === 0) throw new ConnectRefusedError(`DNS lookup of ${host} returned no address`, 'dns');
  }
  for (const address of addresses) {
    const refusal = options.policy.refusal(address);
    if (refusal) {
      throw new ConnectRefusedError(
        `${host}${host === address ? '' : ` resolves to ${address}, which`} is ${refusal}; connections to private or internal networks are refused`,
        'address',
      );
    }
  }
  if (options.proxy) return tunnel(options.proxy, addresses[0], port, options.connectTimeoutMs);
  let lastError: Error | undefined;
  for (const address of addresses) {
    try {
      return await openTcp(address, port, options.connectTimeoutMs);
    } catch (err) {
      lastError = err as Error;
    }
  }
  throw new ConnectRefusedError(`Could not connect to ${host}:${port} (${(lastError as NodeJS.ErrnoException)?.code ?? lastError?.message})`, 'connect');
}

function openTcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`connect timeout after ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Opens a CONNECT tunnel through the proxy to address:port. */
async function tunnel(proxy: URL, address: string, port: number, timeoutMs: number): Promise<Socket> {
  const proxyPort = Number(proxy.port) || 80;
  let socket: Socket;
  try {
    socket = await openTcp(proxy.hostname.replace(/^\[(.*)\]$/, '$1'), proxyPort, timeoutMs);
  } catch (err) {
    throw new ConnectRefusedError(`Could not connect to the proxy ${proxy.host} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'proxy');
  }
  const authority = isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  const credentials = proxy.username ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n` : '';
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new ConnectRefusedError(`The proxy ${proxy.host} did not answer CONNECT within ${timeoutMs} ms`, 'proxy')), timeoutMs);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > 16 * 1024) fail(new ConnectRefusedError(`The proxy ${proxy.host} sent an oversized CONNECT response`, 'proxy'));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', fail);
      // Paused until undici (or TLS) reads: no byte of the tunnel is lost in between.
      socket.pause();
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
      if (status !== 200) {
        socket.destroy();
        reject(new ConnectRefusedError(`The proxy ${proxy.host} refused the tunnel: ${statusLine || 'no status line'}`, 'proxy'));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', fail);
  });
}
