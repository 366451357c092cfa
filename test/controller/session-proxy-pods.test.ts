// A session that takes proxies, decided without a cluster: its launch shape matches no pool, its
// pod runs the session proxy (a free port when the agent launches Chromium, a known one for a
// Chromium sidecar, which is pointed at it), and the routes pick each host's way.
import assert from 'node:assert/strict';
import { launchHash, launchShapeOf, sameLaunch } from '../../src/schemas/launch-shape.js';
import { browserPod, SIDECAR_PROXY_PORT } from '../../src/controller/pods/templates.js';
import { proxyRouter, proxyRoutes } from '../../src/schemas/session-proxies.js';
import { PodEnv } from '../../src/schemas/pod-env.js';
import { podTemplates, runningInvocation } from '../support/pod-fixtures.js';
import { loadSettings } from '../../src/config/settings.js';

const external = { type: 'external', server: 'proxy.example:3128', username: 'a b', password: 'p@ss:word' };

describe('sessions that take proxies', () => {
  it('launch otherwise than any pool: a proxied session starts cold', () => {
    assert.deepEqual(launchShapeOf({ proxies: true }), { proxied: true });
    assert.deepEqual(launchShapeOf({ proxies: [{ type: 'none' }], browserSettings: { viewport: { width: 800, height: 600 } } }), { viewport: { width: 800, height: 600 }, proxied: true });
    assert.deepEqual(launchShapeOf({ proxies: false }), {});
    assert.deepEqual(launchShapeOf({ proxies: [] }), {});
    assert.ok(!sameLaunch({}, launchShapeOf({ proxies: true })));
    assert.notEqual(launchHash({ viewport: { width: 800, height: 600 } }), launchHash({ viewport: { width: 800, height: 600 }, proxied: true }));
  });

  it("runs the session proxy in the pod: on any free port beside the agent's Chromium, on a known one for a sidecar that goes through it", () => {
    const proxied = { ...runningInvocation, spec: { ...runningInvocation.spec, sessionConfig: { proxies: true } } };
    const agentOnly = browserPod(proxied, 1, podTemplates);
    assert.deepEqual(agentOnly.spec.containers[0].env?.find((e) => e.name === PodEnv.proxyPort), { name: PodEnv.proxyPort, value: '0' });

    const sidecar = browserPod(proxied, 1, { ...podTemplates, chromiumSidecar: true });
    for (const container of sidecar.spec.containers) {
      assert.deepEqual(container.env?.find((e) => e.name === PodEnv.proxyPort), { name: PodEnv.proxyPort, value: SIDECAR_PROXY_PORT }, container.name);
    }
    const chromium = sidecar.spec.containers.find((c) => c.name === 'chromium')!;
    assert.ok(chromium.command?.includes(`--proxy-server=http://127.0.0.1:$(${PodEnv.proxyPort})`), chromium.command?.join(' '));

    const plain = browserPod(runningInvocation, 1, { ...podTemplates, chromiumSidecar: true });
    assert.ok(plain.spec.containers.every((c) => !c.env?.some((e) => e.name === PodEnv.proxyPort)));
    assert.ok(!plain.spec.containers[0].command?.some((arg) => arg.startsWith('--proxy-server')));
    // No credential is written into the pod spec: the agent gets them with its invocation.
    assert.ok(!JSON.stringify(browserPod({ ...runningInvocation, spec: { ...runningInvocation.spec, sessionConfig: { proxies: [external] } } }, 1, podTemplates)).includes('p@ss'));
  });

  it('routes a host by the first entry whose pattern matches all of it, else direct, with credentials in the URL', () => {
    const route = proxyRouter(
      proxyRoutes({
        proxies: [
          { type: 'none', domainPattern: 'intranet\\.example' },
          { ...external, domainPattern: '(.*\\.)?shop\\.example' },
          { type: 'browserbase', domainPattern: '.*\\.gov' },
        ],
      }),
    );
    assert.deepEqual(route('intranet.example'), { kind: 'direct' });
    assert.deepEqual(route('shop.example'), { kind: 'external', url: 'http://a%20b:p%40ss%3Aword@proxy.example:3128' });
    assert.deepEqual(route('WWW.Shop.Example'), { kind: 'external', url: 'http://a%20b:p%40ss%3Aword@proxy.example:3128' });
    assert.deepEqual(route('shop.example.evil'), { kind: 'direct' }, 'the pattern matches the whole host name');
    assert.deepEqual(route('data.gov'), { kind: 'operator' });
    assert.deepEqual(route('example.org'), { kind: 'direct' });
    assert.deepEqual(proxyRouter(proxyRoutes({ proxies: true }))('anything.example'), { kind: 'operator' });
    assert.deepEqual(proxyRouter(proxyRoutes({ proxies: [{ type: 'external', server: 'socks5://10.0.0.2:1080' }] }))('[::1]'), { kind: 'external', url: 'socks5://10.0.0.2:1080' });
  });
});

describe("the operator's proxy for browsers (BROWSERFN_BROWSER_PROXY)", () => {
  const settings = (value: string) => loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', BROWSERFN_BROWSER_PROXY: value } }).browserProxy;

  it('takes a proxy URL with its credentials, and none when unset', () => {
    assert.equal(settings('http://op:s3cret@proxy.internal:3128/'), 'http://op:s3cret@proxy.internal:3128');
    assert.equal(settings('socks5://10.0.0.9:1080'), 'socks5://10.0.0.9:1080');
    assert.equal(settings(''), undefined);
  });

  it('refuses what is not a proxy URL without echoing it (it holds credentials)', () => {
    for (const value of ['op:s3cret@proxy.internal:3128', 'ftp://op:s3cret@proxy.internal:21']) {
      assert.throws(
        () => settings(value),
        (err: Error) => /^BROWSERFN_BROWSER_PROXY must be a proxy URL such as http:\/\/user:pass@proxy:3128/.test(err.message) && !err.message.includes('s3cret'),
        value,
      );
    }
  });
});
