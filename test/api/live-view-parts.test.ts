// The pieces of live view and session metrics that need no browser: tokens, the view-only rule,
// the path allowlist both ends keep, and the metrics cap.
import assert from 'node:assert/strict';
import { issueLiveToken, verifyLiveToken } from '../../src/api/live-view/live-token.js';
import { refuseForViewOnly } from '../../src/api/live-view/view-only.js';
import { isRelayableHttpPath, isRelayableWsPath } from '../../src/schemas/live-channel.js';
import { parseChromiumTargets } from '../../src/api/live-view/live-urls.js';
import { devtoolsContentType } from '../../src/api/routes/sessions/sessions-live-assets.js';
import { capSessionMetrics, emptySessionMetrics } from '../../src/schemas/session-metrics.js';
import { issuePodToken, verifyPodToken } from '../../src/runtime/pod-token.js';

const SECRET = 'test-secret';
const SESSION = '3f1c2a9e-4b7d-4c1e-9a55-0d6b2e7f8a10';

describe('live view: tokens, view-only, paths; session metrics cap', () => {
  it('keeps only pages with CDP-shaped ids from a relayed page list, and refuses what is not a list', () => {
    const list = [
      { id: 'A1B2C3', type: 'page', title: 'Shop', url: 'https://shop.test/', faviconUrl: 'https://shop.test/f.ico' },
      { id: 'x&remoteFrontend=evil', type: 'page', title: 'forged', url: 'https://evil.test/' },
      { id: 'D4E5', type: 'service_worker', title: 'sw', url: 'https://shop.test/sw.js' },
      { id: 'F6', type: 'page', title: 7, url: null },
      'not an object',
    ];
    assert.deepEqual(parseChromiumTargets(Buffer.from(JSON.stringify(list))), [
      { id: 'A1B2C3', type: 'page', title: 'Shop', url: 'https://shop.test/', faviconUrl: 'https://shop.test/f.ico' },
      { id: 'F6', type: 'page', title: '', url: '', faviconUrl: undefined },
    ]);
    assert.throws(() => parseChromiumTargets(Buffer.from('<html>not json</html>')));
    assert.throws(() => parseChromiumTargets(Buffer.from('{"id":"A1"}')), /not a list/);
  });

  it('types a DevTools file by its name, whatever the pod says; unknown names are bytes that nothing renders', () => {
    assert.equal(devtoolsContentType('inspector.html'), 'text/html; charset=utf-8');
    assert.equal(devtoolsContentType('entrypoints/inspector/inspector.js'), 'text/javascript; charset=utf-8');
    assert.equal(devtoolsContentType('Images/src/checker.svg'), 'image/svg+xml');
    for (const name of ['evil', 'x.html.exe', 'payload.php', 'x.HTML', 'page.htm']) assert.equal(devtoolsContentType(name), 'application/octet-stream', name);
  });

  it('a token verifies for its session until it expires, never for another session or key', () => {
    const exp = Date.now() + 60_000;
    const token = issueLiveToken(SECRET, { project: 'default', sessionId: SESSION, viewOnly: true, exp });
    const check = verifyLiveToken(SECRET, token, SESSION.toUpperCase());
    assert.ok(check.ok);
    assert.deepEqual(check.claims, { project: 'default', sessionId: SESSION, viewOnly: true, exp });
    assert.match((verifyLiveToken(SECRET, token, '00000000-0000-4000-8000-000000000000') as { reason: string }).reason, /another session/);
    assert.equal(verifyLiveToken('other-secret', token, SESSION).ok, false);
    assert.match((verifyLiveToken(SECRET, token, SESSION, { nowMs: exp }) as { reason: string }).reason, /expired/);
    assert.equal(verifyLiveToken(SECRET, `${token}x`, SESSION).ok, false);
  });

  it('a viewer token never passes as a replica token, nor a replica token as a viewer token', () => {
    const claims = { project: 'default', sessionId: SESSION, viewOnly: false, exp: Date.now() + 60_000 };
    const viewer = issueLiveToken(SECRET, claims);
    const replica = issueLiveToken(SECRET, claims, 'replica');
    assert.ok(verifyLiveToken(SECRET, replica, SESSION, { audience: 'replica' }).ok);
    assert.equal(verifyLiveToken(SECRET, viewer, SESSION, { audience: 'replica' }).ok, false);
    assert.equal(verifyLiveToken(SECRET, replica, SESSION).ok, false);
  });

  it('a live token never passes as a pod token, nor a pod token as a live token', () => {
    const live = issueLiveToken(SECRET, { project: 'default', sessionId: SESSION, viewOnly: false, exp: Date.now() + 60_000 });
    assert.equal(verifyPodToken(SECRET, live, { namespace: 'default', name: SESSION }).ok, false);
    const pod = issuePodToken(SECRET, { namespace: 'default', name: 'p', uid: 'u', exp: Math.floor(Date.now() / 1000) + 60 });
    assert.equal(verifyLiveToken(SECRET, pod, SESSION).ok, false);
  });

  it('view-only lets reads through and answers everything else with a CDP error of the same id and session', () => {
    assert.equal(refuseForViewOnly(JSON.stringify({ id: 1, method: 'DOM.getDocument' })), undefined);
    assert.equal(refuseForViewOnly(JSON.stringify({ id: 2, method: 'Page.startScreencast', sessionId: 's' })), undefined);
    for (const method of ['Runtime.evaluate', 'Page.navigate', 'Input.dispatchMouseEvent', 'DOM.setAttributeValue', 'Browser.close', 'Target.createTarget']) {
      const refused = refuseForViewOnly(JSON.stringify({ id: 7, method, sessionId: 'abc' }));
      assert.ok(refused, method);
      assert.deepEqual(JSON.parse(refused.reply), { id: 7, sessionId: 'abc', error: { code: -32601, message: `${method} is not allowed in a view-only live view` } });
    }
    assert.ok(refuseForViewOnly('not json'));
  });

  it('only DevTools files, the page list and CDP endpoints are relayed', () => {
    for (const path of ['/devtools/inspector.html', '/devtools/entrypoints/inspector/inspector.js', '/json/list']) assert.ok(isRelayableHttpPath(path), path);
    for (const path of ['/json/new?about:blank', '/json/close/X', '/devtools/../json/version', '/devtools/page/ABC', '/etc/passwd', '/devtools/browser/x']) assert.ok(!isRelayableHttpPath(path), path);
    for (const path of ['/devtools/page/1A2B3C', '/devtools/browser']) assert.ok(isRelayableWsPath(path), path);
    for (const path of ['/devtools/page/../../x', '/devtools/browser/abc', '/json/list']) assert.ok(!isRelayableWsPath(path), path);
  });

  it('metrics over their cap are thinned, whole session kept, then the oldest navigations go', () => {
    const metrics = emptySessionMetrics(1000);
    for (let i = 0; i < 400; i += 1) metrics.samples.push({ timestamp: i, pageId: 'P', metrics: { JSHeapUsedSize: i, Nodes: 10 } });
    for (let i = 0; i < 20; i += 1) metrics.navigations.push({ timestamp: i, pageId: 'P', url: `http://x/${i}`, timing: { pad: 'y'.repeat(500) } });
    const capped = capSessionMetrics(metrics, 8 * 1024);
    assert.ok(Buffer.byteLength(JSON.stringify(capped)) <= 8 * 1024);
    assert.equal(capped.samples[0]!.timestamp, 0, 'the first sample stays');
    assert.ok(capped.intervalMs > 1000);
    assert.equal(capped.dropped.samples, 400 - capped.samples.length);
    assert.equal(capped.dropped.navigations, 20 - capped.navigations.length);
    if (capped.navigations.length > 0) assert.equal(capped.navigations.at(-1)!.url, 'http://x/19', 'the newest navigation stays');
    assert.deepEqual(capSessionMetrics(emptySessionMetrics(5), 1024), emptySessionMetrics(5));
  });
});
