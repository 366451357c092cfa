// POST /v1/fetch on the wire: redirects, the SSRF guard (and DNS rebinding), DNS and TLS failures,
// and the CONNECT proxy.
import assert from 'node:assert/strict';
import {
  selfSignedCertificate,
  startConnectProxy,
  startFetchApi,
  startHttpsUpstream,
  startUpstream,
  type ConnectProxy,
  type FetchApi,
  type Upstream,
} from './harness.js';

describe('POST /v1/fetch network behaviour', function () {
  let upstream: Upstream;

  before(async () => {
    upstream = await startUpstream((req, res) => {
      const path = req.url ?? '/';
      const hop = /^\/chain\/(\d+)$/.exec(path);
      if (hop) {
        const left = Number(hop[1]);
        if (left === 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain');
        else res.writeHead(left % 2 ? 302 : 301, { location: `/chain/${left - 1}` }).end();
      } else if (path === '/moved') res.writeHead(302, { location: '/docs/page.html', 'x-hop': 'first' }).end('moved');
      else if (path === '/docs/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><main><h1>Page</h1><p>Read the <a href="next.html">next chapter</a> of this long and useful document about redirects.</p></main></body></html>');
      else if (path === '/loop') res.writeHead(307, { location: '/loop' }).end();
      else if (path === '/to-ftp') res.writeHead(302, { location: 'ftp://127.0.0.1/file' }).end();
      else if (path === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (path === '/host') res.writeHead(200, { 'content-type': 'text/plain' }).end(`host=${req.headers.host}`);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from upstream');
    });
  });

  after(() => upstream.close());

  describe('redirects', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_MAX_REDIRECTS: '3' });
    });
    after(() => api.close());

    it('allowRedirects false returns the 3xx as it is', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/moved` });
      assert.equal(status, 200);
      assert.equal(body.statusCode, 302);
      assert.equal(body.headers.location, '/docs/page.html');
      assert.equal(body.content, 'moved');
    });

    it('allowRedirects true follows up to the hop limit', async () => {
      const { body } = await api.post({ url: `${upstream.url}/chain/3`, allowRedirects: true });
      assert.equal(body.statusCode, 200);
      assert.equal(body.content, 'end of chain');
      assert.equal(upstream.requests.filter((r) => r.url?.startsWith('/chain/')).length, 4);
    });

    it('one hop more than the limit is a 502 naming the limit', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/chain/4`, allowRedirects: true });
      assert.equal(status, 502);
      assert.match(body.message, /redirected more than 3 times; the redirect hop limit is 3/);
      assert.ok(body.id);
    });

    it('a redirect loop ends at the limit', async () => {
      const { status } = await api.post({ url: `${upstream.url}/loop`, allowRedirects: true });
      assert.equal(status, 502);
    });

    it('a redirect to a non-http scheme is a 502', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/to-ftp`, allowRedirects: true });
      assert.equal(status, 502);
      assert.match(body.message, /redirected to ftp: URL/);
    });

    it('markdown links are absolute against the final URL', async () => {
      const { body } = await api.post({ url: `${upstream.url}/moved`, allowRedirects: true, format: 'markdown' });
      assert.match(body.content, /\[next chapter\]\(http:\/\/127\.0\.0\.1:\d+\/docs\/next\.html\)/);
    });
  });

  describe('SSRF guard (on by default)', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_ALLOW_PRIVATE: '0' });
    });
    after(() => api.close());

    const refused: [string, (port: number) => string, RegExp][] = [
      ['loopback IPv4', (p) => `http://127.0.0.1:${p}/`, /127\.0\.0\.1 is a loopback address/],
      ['loopback IPv6', (p) => `http://[::1]:${p}/`, /::1 is a loopback address/],
      ['a name resolving to loopback', (p) => `http://localhost:${p}/`, /localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/],
      ['cloud metadata (link-local)', () => 'http://169.254.169.254/latest/meta-data/', /link-local address \(cloud metadata/],
      ['private', () => 'http://10.1.2.3/', /10\.1\.2\.3 is a private address/],
      ['unique-local IPv6', () => 'http://[fd00::1]/', /unique-local address/],
      ['multicast', () => 'http://224.0.0.1/', /multicast address/],
      ['IPv4-mapped IPv6 loopback', (p) => `http://[::ffff:127.0.0.1]:${p}/`, /loopback address/],
    ];
    for (const [name, url, message] of refused) {
      it(`refuses ${name}`, async () => {
        const before = upstream.requests.length;
        const { status, body } = await api.post({ url: url(upstream.port) });
        assert.equal(status, 400);
        assert.match(body.message, /^Refused to fetch /);
        assert.match(body.message, message);
        assert.ok(body.id);
        assert.equal(upstream.requests.length, before, 'nothing reached the upstream');
      });
    }
  });

  describe('SSRF guard with an allowlist', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi({ BROWSERFN_FETCH_ALLOW_PRIVATE: '0', BROWSERFN_FETCH_ALLOW_CIDRS: '127.0.0.1/32' });
    });
    after(() => api.close());

    it('BROWSERFN_FETCH_ALLOW_CIDRS lets the listed network through', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/` });
      assert.equal(status, 200);
      assert.equal(body.content, 'hello from upstream');
    });

    it('checks every redirect hop: a hop to cloud metadata is refused', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/to-metadata`, allowRedirects: true });
      assert.equal(status, 400);
      assert.match(body.message, /Refused to fetch .*169\.254\.169\.254 is a link-local address/);
    });
  });

  describe('DNS rebinding', () => {
    it('connects to the address that was checked, resolving once per connection', async () => {
      const answers = ['127.0.0.1', '10.0.0.1', '10.0.0.1'];
      const asked: string[] = [];
      const api = await startFetchApi(
        { BROWSERFN_FETCH_ALLOW_PRIVATE: '0', BROWSERFN_FETCH_ALLOW_CIDRS: '127.0.0.1/32' },
        {
          resolve: async (hostname) => {
            asked.push(hostname);
            return [answers.shift() ?? '10.0.0.1'];
          },
        },
      );
      try {
        // "rebind.test" does not exist: the request can only arrive if the socket went to the checked address.
        const { status, body } = await api.post({ url: `http://rebind.test:${upstream.port}/host` });
        assert.equal(status, 200);
        assert.equal(body.content, `host=rebind.test:${upstream.port}`);
        assert.deepEqual(asked, ['rebind.test']);
        // The name now resolves to a private address: a new connection is refused.
        const second = await api.post({ url: `http://other.test:${upstream.port}/host` });
        assert.equal(second.status, 400);
        assert.match(second.body.message, /other\.test resolves to 10\.0\.0\.1, which is a private address/);
      } finally {
        await api.close();
      }
    });
  });

  describe('failures upstream', () => {
    let api: FetchApi;
    before(async () => {
      api = await startFetchApi();
    });
    after(() => api.close());

    it('a DNS failure is a 502', async () => {
      const { status, body } = await api.post({ url: 'http://no-such-host.invalid/' });
      assert.equal(status, 502);
      assert.match(body.message, /DNS lookup of no-such-host\.invalid failed/);
      assert.ok(body.id);
    });

    it('a refused connection is a 502', async () => {
      const closed = await startUpstream(() => undefined);
      const port = closed.port;
      await closed.close();
      const { status, body } = await api.post({ url: `http://127.0.0.1:${port}/` });
      assert.equal(status, 502);
      assert.match(body.message, /Could not connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    });
  });

  describe('TLS', () => {
    let api: FetchApi;
    let secure: Upstream;
    before(async () => {
      api = await startFetchApi();
      secure = await startHttpsUpstream((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('secret over tls'), selfSignedCertificate());
    });
    after(async () => {
      await api.close();
      await secure.close();
    });

    it('a certificate that does not verify is a 502 saying so', async () => {
      const { status, body } = await api.post({ url: `${secure.url}/` });
      assert.equal(status, 502);
      assert.match(body.message, /TLS verification failed for 127\.0\.0\.1:\d+: .*self[- ]signed/i);
      assert.match(body.message, /allowInsecureSsl/);
    });

    it('allowInsecureSsl skips the certificate check', async () => {
      const { status, body } = await api.post({ url: `${secure.url}/`, allowInsecureSsl: true });
      assert.equal(status, 200);
      assert.equal(body.content, 'secret over tls');
    });
  });

  describe('proxy (HTTP CONNECT)', () => {
    let proxy: ConnectProxy;
    let api: FetchApi;
    let secure: Upstream;
    before(async () => {
      proxy = await startConnectProxy('scott:tiger');
      const proxyUrl = new URL(proxy.url);
      proxyUrl.username = 'scott';
      proxyUrl.password = 'tiger';
      api = await startFetchApi({ BROWSERFN_FETCH_PROXY: proxyUrl.href });
      secure = await startHttpsUpstream((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('tls through the tunnel'), selfSignedCertificate());
    });
    after(async () => {
      await api.close();
      await proxy.close();
      await secure.close();
    });

    it('proxies: true goes through the proxy, tunnelling to the checked address', async () => {
      const { status, body } = await api.post({ url: `${upstream.url}/`, proxies: true });
      assert.equal(status, 200);
      assert.equal(body.content, 'hello from upstream');
      assert.deepEqual(proxy.tunnels, [`127.0.0.1:${upstream.port}`]);
    });

    it('HTTPS runs over the tunnel', async () => {
      const { status, body } = await api.post({ url: `${secure.url}/`, proxies: true, allowInsecureSsl: true });
      assert.equal(status, 200);
      assert.equal(body.content, 'tls through the tunnel');
      assert.ok(proxy.tunnels.includes(`127.0.0.1:${secure.port}`));
    });

    it('proxies: false connects directly', async () => {
      const tunnels = proxy.tunnels.length;
      const { status } = await api.post({ url: `${upstream.url}/host` });
      assert.equal(status, 200);
      assert.equal(proxy.tunnels.length, tunnels);
    });

    it('a proxy refusing the tunnel is a 502', async () => {
      const strict = await startConnectProxy('other:credentials');
      const other = await startFetchApi({ BROWSERFN_FETCH_PROXY: strict.url });
      try {
        const { status, body } = await other.post({ url: `${upstream.url}/`, proxies: true });
        assert.equal(status, 502);
        assert.match(body.message, /refused the tunnel: HTTP\/1\.1 407/);
      } finally {
        await other.close();
        await strict.close();
      }
    });

    it('the SSRF guard applies to proxied targets too', async () => {
      const guarded = await startFetchApi({ BROWSERFN_FETCH_PROXY: proxy.url.replace('http://', 'http://scott:tiger@'), BROWSERFN_FETCH_ALLOW_PRIVATE: '0' });
      try {
        const { status, body } = await guarded.post({ url: `${upstream.url}/`, proxies: true });
        assert.equal(status, 400);
        assert.match(body.message, /loopback address/);
      } finally {
        await guarded.close();
      }
    });
  });
});
