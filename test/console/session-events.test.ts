// The console's reading of recorded CDP events: timeline rows and network requests with timings.
import assert from 'node:assert/strict';
import { networkRequests, timeline } from '../../src/console/session-events.js';
import type { SessionEvent } from '../../src/console/types.js';

const at = (timestamp: number, method: string, params: unknown, pageId = 'P1'): SessionEvent => ({ method, timestamp, params, pageId });

describe('console: session events', () => {
  it('makes timeline rows of console output, exceptions, navigation and network, in time order', () => {
    const rows = timeline([
      at(1003, 'Runtime.consoleAPICalled', { type: 'warn', args: [{ type: 'string', value: 'low' }, { type: 'number', value: 3 }, { type: 'object', description: 'Object' }] }),
      at(1001, 'Page.frameNavigated', { frame: { id: 'F', url: 'http://a.test/' } }),
      at(1002, 'Page.frameNavigated', { frame: { id: 'G', parentId: 'F', url: 'http://ad.test/' } }),
      at(1004, 'Runtime.exceptionThrown', { exceptionDetails: { text: 'Uncaught', exception: { description: 'TypeError: x is undefined' } } }),
      at(1000, 'Network.requestWillBeSent', { requestId: 'R', request: { method: 'POST', url: 'http://a.test/api' }, timestamp: 5 }),
      at(1005, 'Network.responseReceived', { requestId: 'R', response: { status: 503, url: 'http://a.test/api' }, timestamp: 5.1 }),
      at(1006, 'Network.loadingFinished', { requestId: 'R', timestamp: 5.2, encodedDataLength: 10 }),
      at(1007, 'browserfn.sessionLogTruncated', { droppedEvents: 12 }),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.at, r.kind, r.level, r.text]),
      [
        [1000, 'network', 'request', 'POST http://a.test/api'],
        [1001, 'page', 'navigation', 'navigated to http://a.test/'],
        [1003, 'console', 'warn', 'low 3 Object'],
        [1004, 'exception', 'error', 'TypeError: x is undefined'],
        [1005, 'network', 'error', '503 http://a.test/api'],
        [1007, 'note', 'warning', '12 later events were not kept (the session log\'s limits)'],
      ],
    );
  });

  it('joins a request\'s events into one with its timings, size and outcome; redirects are hops; pages keep their IDs apart', () => {
    const requests = networkRequests([
      at(1, 'Network.requestWillBeSent', { requestId: 'A', request: { method: 'GET', url: 'http://a.test/' }, type: 'Document', timestamp: 10 }),
      at(2, 'Network.requestWillBeSent', { requestId: 'A', request: { method: 'GET', url: 'http://a.test/home' }, redirectResponse: { status: 301, mimeType: 'text/html' }, type: 'Document', timestamp: 10.1 }),
      at(3, 'Network.responseReceived', { requestId: 'A', type: 'Document', response: { status: 200, mimeType: 'text/html' }, timestamp: 10.3 }),
      at(4, 'Network.loadingFinished', { requestId: 'A', timestamp: 10.4, encodedDataLength: 2048 }),
      at(5, 'Network.requestWillBeSent', { requestId: 'A', request: { method: 'GET', url: 'http://b.test/' }, timestamp: 10.2 }, 'P2'),
      at(6, 'Network.loadingFailed', { requestId: 'A', timestamp: 10.5, errorText: 'net::ERR_NAME_NOT_RESOLVED' }, 'P2'),
      at(7, 'Network.requestWillBeSent', { requestId: 'C', request: { method: 'GET', url: 'http://a.test/slow' }, timestamp: 10.35 }),
    ]);
    assert.deepEqual(
      requests.map(({ url, status, start, responseAt, end, bytes, failed }) => ({ url, status, start, responseAt, end, bytes, failed })),
      [
        { url: 'http://a.test/', status: 301, start: 10, responseAt: undefined, end: 10.1, bytes: undefined, failed: undefined },
        { url: 'http://a.test/home', status: 200, start: 10.1, responseAt: 10.3, end: 10.4, bytes: 2048, failed: undefined },
        { url: 'http://b.test/', status: undefined, start: 10.2, responseAt: undefined, end: 10.5, bytes: undefined, failed: 'net::ERR_NAME_NOT_RESOLVED' },
        { url: 'http://a.test/slow', status: undefined, start: 10.35, responseAt: undefined, end: undefined, bytes: undefined, failed: undefined },
      ],
    );
  });
});
