import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuildFailure } from '../../src/build/build-failure.js';
import { FORCED_NPM_KEYS } from '../../src/build/npm-settings.js';
import { filterNpmrc, npmrcAllowList, takeProjectNpmrc } from '../../src/build/project-npmrc.js';

describe("the project's .npmrc", () => {
  const NPMRC = [
    '; a comment',
    'registry=https://registry.example/',
    '@acme:registry = https://npm.acme.example/',
    '//npm.acme.example/:_authToken=literal-token',
    '//${HTTPS_PROXY}/:_authToken=x',
    'git=./evil.sh',
    'strict-ssl=false',
    'registry[]=https://array.example/',
    '[section]',
    'legacy-peer-deps=true',
  ].join('\n');

  it('keeps only allowed keys by default, never forced ones or values reading the environment', () => {
    const { carried, leftOut } = filterNpmrc(NPMRC, npmrcAllowList({}), FORCED_NPM_KEYS);
    assert.deepEqual(carried, ['registry=https://registry.example/', '@acme:registry = https://npm.acme.example/', '//npm.acme.example/:_authToken=literal-token']);
    assert.deepEqual(leftOut, [
      '"//${HTTPS_PROXY}/:_authToken" (reads an environment variable; builds have none)',
      '"git" (set by the build)',
      '"strict-ssl" (not allowed by BROWSERFN_BUILD_NPMRC_ALLOW)',
      '"registry[]" (not allowed by BROWSERFN_BUILD_NPMRC_ALLOW)',
      '"legacy-peer-deps" (inside a [section])',
    ]);
  });

  it('follows BROWSERFN_BUILD_NPMRC_ALLOW; an empty setting keeps nothing, and forced keys stay out whatever it says', () => {
    const custom = filterNpmrc(NPMRC, npmrcAllowList({ BROWSERFN_BUILD_NPMRC_ALLOW: 'strict-ssl, git' }), FORCED_NPM_KEYS);
    assert.deepEqual(custom.carried, ['strict-ssl=false']);
    assert.ok(custom.leftOut.includes('"git" (set by the build)'));
    assert.deepEqual(filterNpmrc(NPMRC, npmrcAllowList({ BROWSERFN_BUILD_NPMRC_ALLOW: '' }), FORCED_NPM_KEYS).carried, []);
  });

  it('is taken out of the project before npm runs, and must be a regular file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'browserfn-npmrc-'));
    try {
      writeFileSync(join(dir, '.npmrc'), 'registry=https://registry.example/\n');
      assert.deepEqual(takeProjectNpmrc(dir, npmrcAllowList({}), FORCED_NPM_KEYS).carried, ['registry=https://registry.example/']);
      assert.ok(!existsSync(join(dir, '.npmrc')));
      assert.deepEqual(takeProjectNpmrc(dir, npmrcAllowList({}), FORCED_NPM_KEYS), { carried: [], leftOut: [] });
      writeFileSync(join(dir, 'real'), 'git=./x\n');
      symlinkSync('real', join(dir, '.npmrc'));
      assert.throws(() => takeProjectNpmrc(dir, npmrcAllowList({}), FORCED_NPM_KEYS), (error: unknown) => error instanceof BuildFailure && /must be a regular file/.test(error.message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
