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
        proxies: [{ type: 'browserbase', geolocation: { country: 'US' } }, { type: 'external', server: 'http://proxy:8080' }],
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
