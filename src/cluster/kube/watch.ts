// One watch of the port on the API server's watch stream. The server ends every watch request after
// timeoutSeconds; the watch then resumes from the last resourceVersion it saw (bookmarks included,
// so a quiet watch does not fall behind the server's history). Anything else ends the watch and is
// reported through onError: ERROR events (410 Gone → GoneError), refused reconnects, a dropped
// connection, a request the server never ends, or a throwing handler. The owner (the informer)
// restarts with backoff. Every connection's socket is closed before the next one is needed.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { KubeObject, ResourceType } from '../objects.js';
import type { Watch, WatchEvent } from '../port.js';
import { errorFromStatus, isApiStatus } from './errors.js';
import { fromServer } from './normalize.js';
import type { KubeRestClient, Query } from './rest-client.js';

/** A request the server has not ended this long after its own timeoutSeconds is taken as a dead connection. */
const END_GRACE_SECONDS = 30;

export interface WatchRequest {
  path: string;
  /** labelSelector / fieldSelector. */
  selectors: Query;
  /** The resourceVersion to start after; "0" starts with the current objects as ADDED. */
  resourceVersion: string;
  /** Each request asks the server to end it after a random time in [min, 2·min) seconds (as client-go does), so reconnects spread out. */
  minTimeoutSeconds: number;
}

interface Connection {
  request: ClientRequest;
  closed: Promise<void>;
  deadline?: NodeJS.Timeout;
}

export class KubeWatch<T extends KubeObject> implements Watch {
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private ended = false;
  private connection?: Connection;
  /** A reconnect in flight; stop() waits for it so that no socket outlives the watch. */
  private reconnecting?: Promise<void>;
  private resourceVersion: string;

  constructor(
    private readonly rest: KubeRestClient,
    private readonly type: ResourceType,
    private readonly target: WatchRequest,
    private readonly onEvent: (event: WatchEvent<T>) => void,
    private readonly onError: ((err: Error) => void) | undefined,
    private readonly onEnd: (watch: KubeWatch<T>) => void,
  ) {
    this.resourceVersion = target.resourceVersion;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Opens the first request; rejects (and ends the watch) when the server refuses it. */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      this.ended = true;
      this.finish();
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      await this.disconnect();
      await this.reconnecting;
      this.finish();
    }
    await this.done;
  }

  private async connect(): Promise<void> {
    const timeoutSeconds = this.target.minTimeoutSeconds + Math.floor(Math.random() * this.target.minTimeoutSeconds);
    const { request, response } = await this.rest.openStream(this.target.path, {
      ...this.target.selectors,
      watch: 'true',
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(timeoutSeconds),
    });
    const connection: Connection = { request, closed: new Promise((resolve) => request.once('close', () => resolve())) };
    this.connection = connection;
    connection.deadline = setTimeout(
      () => this.fail(new Error(`the server did not end the watch request on ${this.target.path} within ${timeoutSeconds + END_GRACE_SECONDS} s although it asked for ${timeoutSeconds} s; the connection is taken as lost`)),
      (timeoutSeconds + END_GRACE_SECONDS) * 1000,
    );
    connection.deadline.unref();
    this.consume(connection, response);
    // stop() came while this request was being opened: close it now (its listeners are in place).
    if (this.ended) await this.disconnect();
  }

  private consume(connection: Connection, response: IncomingMessage): void {
    let buffered = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0 && !this.ended; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim()) this.handleLine(line);
      }
    });
    response.on('error', (err) => this.fail(new Error(`the watch on ${this.target.path} failed: ${err.message}`)));
    connection.request.on('error', (err) => this.fail(new Error(`the watch on ${this.target.path} failed: ${err.message}`)));
    response.once('close', () => {
      clearTimeout(connection.deadline);
      if (this.connection === connection) this.connection = undefined;
      if (this.ended) return;
      if (!response.complete) {
        this.fail(new Error(`the connection of the watch on ${this.target.path} closed before the server ended the stream`));
        return;
      }
      // The server ended the request at its timeout: resume where the stream left off.
      this.reconnecting = this.connect()
        .catch((err: unknown) => this.fail(err instanceof Error ? err : new Error(String(err))))
        .finally(() => (this.reconnecting = undefined));
    });
  }

  private handleLine(line: string): void {
    let event: { type?: string; object?: KubeObject };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      this.fail(new Error(`the watch on ${this.target.path} sent a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const object = event.object;
    switch (event.type) {
      case 'ERROR':
        this.fail(errorFromStatus(isApiStatus(object) ? (object.code ?? 500) : 500, object, `watch ${this.target.path}`));
        return;
      case 'BOOKMARK':
        if (object?.metadata?.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
        return;
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED':
        if (!object?.metadata?.resourceVersion) {
          this.fail(new Error(`the watch on ${this.target.path} sent a ${event.type} event without an object`));
          return;
        }
        this.resourceVersion = object.metadata.resourceVersion;
        try {
          this.onEvent({ type: event.type, object: fromServer<T>(this.type, object) });
        } catch (err) {
          // A throwing handler ends the watch, as on the embedded backend; the owner hears why.
          this.fail(err instanceof Error ? err : new Error(String(err)));
        }
        return;
      default:
        this.fail(new Error(`the watch on ${this.target.path} sent an event of unknown type ${JSON.stringify(event.type)}`));
    }
  }

  private fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    void this.disconnect().then(() => {
      try {
        this.onError?.(err);
      } finally {
        this.finish();
      }
    });
  }

  private async disconnect(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (!connection) return;
    clearTimeout(connection.deadline);
    connection.request.destroy();
    await connection.closed;
  }

  private finish(): void {
    this.onEnd(this);
    this.resolveDone();
  }
}
