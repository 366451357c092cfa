// Mount paths of an unsandboxed pod become its host folders: whole path components only, in one
// pass (a folder under the host's /tmp is not mapped again when the pod also mounts /tmp).
import assert from 'node:assert/strict';
import { localPathMapper } from '../../src/runtime/node-agent/local-paths.js';

describe('node agent: mount paths of unsandboxed pods', () => {
  const map = localPathMapper([
    { mountPath: '/work', folder: '/tmp/agent/pods/p1/work' },
    { mountPath: '/tmp', folder: '/tmp/agent/pods/p1/tmp' },
    { mountPath: '/work/cache', folder: '/var/cache/p1' },
  ]);

  it('maps a mount path alone, below it, and as a flag value', () => {
    assert.equal(map('/work'), '/tmp/agent/pods/p1/work');
    assert.equal(map('/work/chromium/profile'), '/tmp/agent/pods/p1/work/chromium/profile');
    assert.equal(map('--user-data-dir=/tmp/profile'), '--user-data-dir=/tmp/agent/pods/p1/tmp/profile');
    assert.equal(map('/work/a:/tmp/b'), '/tmp/agent/pods/p1/work/a:/tmp/agent/pods/p1/tmp/b');
  });

  it('does not map a folder it produced again, nor a path that only starts with the same letters', () => {
    assert.equal(map('/work/x'), '/tmp/agent/pods/p1/work/x');
    assert.equal(map('/tmpfiles/x'), '/tmpfiles/x');
    assert.equal(map('/workspace'), '/workspace');
    assert.equal(map('relative/work/x'), 'relative/work/x');
  });

  it('prefers the longest mount path', () => {
    assert.equal(map('/work/cache/npm'), '/var/cache/p1/npm');
  });

  it('leaves values alone without volumes', () => {
    assert.equal(localPathMapper([])('/work/x'), '/work/x');
  });
});
