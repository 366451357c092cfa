// Chromium's DevTools endpoint is read off its stderr however the pipe splits it. CI once waited
// 30 s for an endpoint Chromium had printed: one read held it followed by more D-Bus complaints
// than the bounded tail kept, and the endpoint was searched for in that tail only.
import assert from 'node:assert/strict';
import { ChromiumStderr } from '../../src/runtime/chromium/chromium-stderr.js';

const ENDPOINT = 'ws://127.0.0.1:40123/devtools/browser/5d1c0a6e-8c1e-4d0b-9a53-2f7f3b1f6f10';
const DBUS_LINE = '[10017:10017:1127/151018.008323:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner: object_path= /org/freedesktop/DBus: unknown error type: \n';

describe('Chromium stderr while it starts', () => {
  it('finds the endpoint in a read that goes on with many kilobytes of other lines', () => {
    const stderr = new ChromiumStderr();
    const read = `${DBUS_LINE.repeat(3)}\nDevTools listening on ${ENDPOINT}\n${DBUS_LINE.repeat(200)}`;
    assert.ok(read.length > 20_000);
    assert.equal(stderr.push(read), ENDPOINT);
  });

  it('waits for the end of the line when a read ends inside the URL', () => {
    const stderr = new ChromiumStderr();
    const line = `DevTools listening on ${ENDPOINT}\n`;
    const cut = line.indexOf('/devtools/');
    assert.equal(stderr.push(DBUS_LINE + line.slice(0, cut)), undefined);
    assert.equal(stderr.push(line.slice(cut, cut + 5)), undefined);
    assert.equal(stderr.push(line.slice(cut + 5) + DBUS_LINE), ENDPOINT);
  });

  it('takes a line ended by CRLF, and ignores the phrase inside another line', () => {
    assert.equal(new ChromiumStderr().push(`DevTools listening on ${ENDPOINT}\r\n`), ENDPOINT);
    assert.equal(new ChromiumStderr().push(`[1:1:ERROR] not DevTools listening on ${ENDPOINT}\n`), undefined);
  });

  it('keeps the last kilobyte for the error message, however much was printed', () => {
    const stderr = new ChromiumStderr();
    assert.equal(stderr.tail(), '(empty)');
    for (let i = 0; i < 100; i++) stderr.push(DBUS_LINE);
    stderr.push('[1:1:FATAL] the last words\n');
    const tail = stderr.tail();
    assert.ok(tail.length <= 1000);
    assert.ok(tail.endsWith('[1:1:FATAL] the last words'));
  });
});
