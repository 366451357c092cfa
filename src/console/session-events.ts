// Turns a session's recorded CDP events (GET /v1/sessions/{id}/logs) into what the invocation
// page shows: a timeline of console, page and network moments, and the network requests with
// their timings for the waterfall. Pure functions over the event list.
import type { SessionEvent } from './types.js';

export interface TimelineRow {
  /** Milliseconds since the epoch (when the recorder received the event). */
  at: number;
  pageId?: string;
  kind: 'console' | 'exception' | 'network' | 'page' | 'dialog' | 'note';
  /** Console level (log, warn, error…) or network outcome, for styling. */
  level: string;
  text: string;
}

export interface NetworkRequest {
  key: string;
  url: string;
  method: string;
  type?: string;
  /** CDP monotonic seconds, comparable between requests of one browser. */
  start: number;
  responseAt?: number;
  end?: number;
  status?: number;
  mimeType?: string;
  bytes?: number;
  failed?: string;
}

type Params = Record<string, any>;

interface RemoteObject {
  type: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
}

const argText = (arg: RemoteObject): string =>
  arg.value !== undefined ? (typeof arg.value === 'string' ? arg.value : JSON.stringify(arg.value)) : arg.unserializableValue ?? arg.description ?? arg.type;

export function timeline(events: SessionEvent[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  for (const event of events) {
    const p = (event.params ?? {}) as Params;
    const row = (kind: TimelineRow['kind'], level: string, text: string) => rows.push({ at: event.timestamp, pageId: event.pageId, kind, level, text });
    switch (event.method) {
      case 'Runtime.consoleAPICalled':
        row('console', String(p.type ?? 'log'), ((p.args ?? []) as RemoteObject[]).map(argText).join(' '));
        break;
      case 'Runtime.exceptionThrown':
        row('exception', 'error', String(p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text ?? 'Uncaught exception'));
        break;
      case 'Network.requestWillBeSent':
        row('network', 'request', `${p.request?.method ?? 'GET'} ${p.request?.url ?? ''}`);
        break;
      case 'Network.responseReceived':
        row('network', Number(p.response?.status) >= 400 ? 'error' : 'response', `${p.response?.status ?? ''} ${p.response?.url ?? ''}`);
        break;
      case 'Network.loadingFailed':
        row('network', 'error', `failed: ${p.errorText ?? 'unknown error'}${p.canceled ? ' (canceled)' : ''}`);
        break;
      case 'Page.frameNavigated':
        if (!p.frame?.parentId) row('page', 'navigation', `navigated to ${p.frame?.url ?? ''}`);
        break;
      case 'Page.navigatedWithinDocument':
        row('page', 'navigation', `navigated within the page to ${p.url ?? ''}`);
        break;
      case 'Page.domContentEventFired':
        row('page', 'event', 'DOMContentLoaded');
        break;
      case 'Page.loadEventFired':
        row('page', 'event', 'load');
        break;
      case 'Page.javascriptDialogOpening':
        row('dialog', 'warning', `${p.type ?? 'dialog'}: ${p.message ?? ''}`);
        break;
      case 'browserfn.sessionLogTruncated':
        row('note', 'warning', `${p.droppedEvents} later events were not kept (the session log's limits)`);
        break;
      default:
        break;
    }
  }
  return rows.sort((a, b) => a.at - b.at);
}

export function networkRequests(events: SessionEvent[]): NetworkRequest[] {
  const all: NetworkRequest[] = [];
  const open = new Map<string, NetworkRequest>();
  for (const event of events) {
    const p = (event.params ?? {}) as Params;
    if (typeof p.requestId !== 'string') continue;
    const id = `${event.pageId ?? ''}/${p.requestId}`;
    const current = open.get(id);
    switch (event.method) {
      case 'Network.requestWillBeSent': {
        // A redirect reuses the request ID: the hop so far ends with the redirect's response.
        if (current && p.redirectResponse) Object.assign(current, { status: p.redirectResponse.status, mimeType: p.redirectResponse.mimeType, end: p.timestamp });
        const request: NetworkRequest = { key: `${id}#${all.length}`, url: String(p.request?.url ?? ''), method: String(p.request?.method ?? 'GET'), type: p.type, start: Number(p.timestamp) };
        all.push(request);
        open.set(id, request);
        break;
      }
      case 'Network.responseReceived':
        if (current) Object.assign(current, { status: p.response?.status, mimeType: p.response?.mimeType, responseAt: p.timestamp, type: p.type ?? current.type });
        break;
      case 'Network.loadingFinished':
        if (current) Object.assign(current, { end: p.timestamp, bytes: p.encodedDataLength });
        break;
      case 'Network.loadingFailed':
        if (current) Object.assign(current, { end: p.timestamp, failed: String(p.errorText ?? 'failed') });
        break;
      default:
        break;
    }
  }
  return all.sort((a, b) => a.start - b.start);
}
