import assert from 'node:assert/strict';
import { deepMergeSessionConfig, validateSessionConfig } from '../../src/schemas/session-config.js';

describe('session config schema', () => {
  it('accepts the create-session fields a Function may set, including unknown browserSettings keys', () => {
    assert.deepEqual(
      validateSessionConfig({
        browserSettings: {
          context: { id: 'ctx-1', persist: true },
          verified: true,
          solveCaptchas: false,
          blockAds: true,
          viewport: { width: 1280, height: 720 },
          fingerprint: { devices: ['desktop'] },
          extensionId: 'ext-1',
          someFutureSetting: { nested: 1 },
        },
        proxies: [
          { type: 'browserbase', domainPattern: '.*\\.gov' },
          { type: 'external', server: 'http://proxy:8080', username: 'u', password: 'p' },
          { type: 'external', server: 'socks5://10.0.0.2:1080', domainPattern: 'example\\.(com|org)' },
          { type: 'none' },
        ],
        extensionId: 'ext-2',
        userMetadata: { team: 'growth' },
        timeout: 900,
        region: 'us-west-2',
        keepAlive: false,
      }),
      [],
    );
    assert.deepEqual(validateSessionConfig({ proxies: true }), []);
    assert.deepEqual(validateSessionConfig({}), []);
  });

  it('refuses a known browserSettings key spelt in another case or with separators, naming the one meant', () => {
    assert.deepEqual(validateSessionConfig({ browserSettings: { viewPort: { width: 800, height: 600 }, record_session: false, blockAds: true } }), [
      'browserSettings has unknown field "viewPort"; did you mean "viewport"?',
      'browserSettings has unknown field "record_session"; did you mean "recordSession"?',
    ]);
  });

  it('names each problem with its path and what is expected', () => {
    const errors = validateSessionConfig({
      browserSettings: { verified: 'yes', context: { persist: true }, viewport: { width: 0 } },
      proxies: 'all',
      timeout: 30,
      region: 'eu-central-1',
      keepAlive: 1,
      sessionName: 'x',
    });
    for (const expected of [
      'browserSettings.verified must be boolean',
      'browserSettings.context.id is required',
      'browserSettings.viewport.width must be >= 1',
      'proxies must be boolean',
      'proxies must be array',
      'timeout must be >= 60',
      'region must be one of "us-west-2"',
      'keepAlive must be boolean',
      'sessionConfig has unknown field "sessionName"',
    ]) {
      assert.ok(errors.includes(expected), `${expected} in ${JSON.stringify(errors)}`);
    }
    assert.deepEqual(validateSessionConfig({ timeout: 901 }), ['timeout must be <= 900']);
    assert.deepEqual(validateSessionConfig({ timeout: 90.5 }), ['timeout must be integer']);
    assert.deepEqual(validateSessionConfig('fast'), ['sessionConfig must be object']);
  });

  it("names what is wrong with a proxy entry: its server, pattern, fields of another type, a location the operator's proxy cannot give", () => {
    const problems = validateSessionConfig({
      proxies: [
        { type: 'external' },
        { type: 'external', server: 'ftp://proxy:21' },
        { type: 'external', server: 'http://proxy:8080/path' },
        { type: 'none', server: 'http://proxy:8080' },
        { type: 'browserbase', geolocation: { country: 'US' } },
        { type: 'external', server: 'proxy:3128', domainPattern: '(a+)\\1' },
      ],
    });
    assert.match(problems.pop() ?? '', /^proxies\.5\.domainPattern is not a usable regular expression: pattern "\(a\+\)\\+1" uses a backreference/);
    assert.deepEqual(
      problems,
      [
        'proxies.0.server is required for an external proxy (http://host:port)',
        'proxies.1.server must be a proxy address such as http://proxy.example:3128 (http, https, socks4 or socks5), got "ftp://proxy:21"',
        'proxies.2.server must be a proxy address such as http://proxy.example:3128 (http, https, socks4 or socks5), got "http://proxy:8080/path"',
        'proxies.3 has server, username or password, which only an entry of type "external" takes',
        'proxies.4.geolocation cannot be applied: type "browserbase" goes through the operator\'s proxy, which has no locations to choose from; leave it out',
      ],
    );
    const missingType = validateSessionConfig({ proxies: [{ server: 'http://p:1' }] });
    assert.ok(missingType.includes('proxies.0.type is required'), JSON.stringify(missingType));
  });

  it('deep-merges an override over a base: objects merge, arrays and scalars are replaced', () => {
    const base = { browserSettings: { verified: true, viewport: { width: 800, height: 600 } }, proxies: [{ type: 'browserbase' }], userMetadata: { a: 1 } };
    const override = { browserSettings: { viewport: { width: 1024 }, solveCaptchas: true }, proxies: [{ type: 'external', server: 'http://p' }], userMetadata: undefined, timeout: 120 };
    const baseCopy = structuredClone(base);
    assert.deepEqual(deepMergeSessionConfig(base, override), {
      browserSettings: { verified: true, viewport: { width: 1024, height: 600 }, solveCaptchas: true },
      proxies: [{ type: 'external', server: 'http://p' }],
      userMetadata: { a: 1 },
      timeout: 120,
    });
    assert.deepEqual(base, baseCopy, 'the base is not modified');
    assert.deepEqual(deepMergeSessionConfig({ proxies: [{ type: 'browserbase' }] }, { proxies: false }), { proxies: false });
    assert.deepEqual(deepMergeSessionConfig(undefined, { keepAlive: true }), { keepAlive: true });
  });

  it('keeps a "__proto__" key of parsed JSON as data', () => {
    const merged = deepMergeSessionConfig<Record<string, unknown>>({}, JSON.parse('{"userMetadata": {"__proto__": {"polluted": true}}}'));
    const metadata = merged.userMetadata as Record<string, unknown>;
    assert.ok(Object.prototype.hasOwnProperty.call(metadata, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(metadata), Object.prototype);
  });
});
