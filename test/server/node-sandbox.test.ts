// serve as root runs each pod as a user of its own, and bwrap (running as that user) must reach the
// folders it mounts: the folders above them are made passable (o+x) — never listable or readable.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowPassageTo } from '../../src/server/node-sandbox.js';

describe('serve: passage to what pod sandboxes mount', () => {
  it('adds o+x to private folders above the given paths, only that, and says which', () => {
    const root = mkdtempSync(join(tmpdir(), 'browserfn-passage-')); // 0700, like a checkout in /root
    try {
      const code = join(root, 'checkout', 'dist');
      mkdirSync(code, { recursive: true });
      const checkout = join(root, 'checkout');
      const before = statSync(checkout).mode & 0o777;
      const opened = allowPassageTo([code]);
      assert.ok(opened.includes(root), JSON.stringify(opened));
      assert.equal(statSync(root).mode & 0o777, 0o701, 'passable, not listable or readable by others');
      assert.equal(statSync(checkout).mode & 0o777, before | 0o001);
      assert.ok(!opened.includes(code), 'the mounted folder itself is left as it is');
      assert.deepEqual(allowPassageTo([code]), [], 'nothing left to change the second time');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
