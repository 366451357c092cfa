// One contract, two backends: the filesystem store (embedded) and the S3 store against a real
// S3-compatible server (versitygw built from its Go module, scripts/s3). The S3 suite skips,
// saying why, only when Go is missing.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync, existsSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import type { ArtifactStore } from '../../src/artifacts/port.js';
import { FilesystemArtifactStore } from '../../src/artifacts/filesystem.js';
import { S3ArtifactStore } from '../../src/artifacts/s3.js';
import { ensureS3Server } from '../support/s3-server.js';

const BAD_KEYS = ['../escape.json', 'a/../../escape', '/etc/passwd', 'a//b', 'A/b', 'a/.hidden', 'a/b/', '', 'a\\b', 'a/b c', 'a/\0'];

function contract(open: () => Promise<ArtifactStore>) {
  let store: ArtifactStore;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps what is put, whole, and answers undefined for a missing key', async () => {
    const body = randomBytes(200_000);
    await store.put('invocations/p1/a.json', body);
    assert.deepEqual(await store.get('invocations/p1/a.json'), body);
    assert.equal(await store.get('invocations/p1/missing.json'), undefined);
  });

  it('overwrites an object with a new version', async () => {
    await store.put('builds/p1/b.json', Buffer.from('one'));
    await store.put('builds/p1/b.json', Buffer.from('two, longer'));
    assert.equal((await store.get('builds/p1/b.json'))?.toString(), 'two, longer');
  });

  it('lists by prefix with sizes and write times, and deletes (a missing key too)', async () => {
    const before = Date.now() - 2000;
    await store.put('invocations/p1/a.json', Buffer.from('aa'));
    await store.put('invocations/p2/b.json', Buffer.from('bbb'));
    await store.put('sessions/p1/s.json', Buffer.from('s'));
    const all = await store.list('invocations/');
    assert.deepEqual(all.map((e) => [e.key, e.size]), [['invocations/p1/a.json', 2], ['invocations/p2/b.json', 3]]);
    for (const entry of all) assert.ok(entry.lastModifiedMs >= before && entry.lastModifiedMs <= Date.now() + 2000, `write time of ${entry.key}`);
    assert.deepEqual((await store.list('invocations/p1/')).map((e) => e.key), ['invocations/p1/a.json']);
    await store.delete('invocations/p1/a.json');
    await store.delete('invocations/p1/never-there.json');
    assert.equal(await store.get('invocations/p1/a.json'), undefined);
    assert.deepEqual((await store.list('invocations/')).map((e) => e.key), ['invocations/p2/b.json']);
    assert.deepEqual(await store.list('nothing-here/'), []);
  });

  it('refuses keys that could name anything outside the store', async () => {
    for (const key of BAD_KEYS) {
      await assert.rejects(store.put(key, Buffer.from('x')), /artifact key/, `put ${JSON.stringify(key)}`);
      await assert.rejects(store.get(key), /artifact key/, `get ${JSON.stringify(key)}`);
      await assert.rejects(store.delete(key), /artifact key/, `delete ${JSON.stringify(key)}`);
    }
    await assert.rejects(store.list('../'), /artifact prefix/);
  });
}

describe('artifact store: filesystem', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'browserfn-artifacts-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  contract(() => FilesystemArtifactStore.open(join(root, 'store')));

  it('writes through a temp file and rename: none is left behind, and one a crash left is cleared at the next open', async () => {
    const store = await FilesystemArtifactStore.open(join(root, 'store'));
    await store.put('invocations/p1/a.json', Buffer.from('whole'));
    assert.deepEqual(readdirSync(join(root, 'store', 'invocations', 'p1')), ['a.json']);
    assert.deepEqual(readdirSync(join(root, 'store', '.tmp')), []);
    // What a crash between write and rename leaves: a temp file, older than any live write.
    const crashed = join(root, 'store', '.tmp', 'crashed');
    writeFileSync(crashed, 'half');
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(crashed, old, old);
    writeFileSync(join(root, 'store', '.tmp', 'in-flight'), 'another writer');
    assert.deepEqual((await store.list('invocations/')).map((e) => e.key), ['invocations/p1/a.json'], 'temp files are not objects');
    await store.close();
    const reopened = await FilesystemArtifactStore.open(join(root, 'store'));
    assert.deepEqual(readdirSync(join(root, 'store', '.tmp')), ['in-flight'], 'a recent one may be another writer\'s');
    assert.equal((await reopened.get('invocations/p1/a.json'))?.toString(), 'whole');
    await reopened.close();
  });

  it('writes nothing outside its root for a hostile key', async () => {
    const store = await FilesystemArtifactStore.open(join(root, 'store'));
    mkdirSync(join(root, 'outside'));
    await assert.rejects(store.put('../outside/x.json', Buffer.from('x')));
    assert.equal(existsSync(join(root, 'outside', 'x.json')), false);
    await store.close();
  });
});

describe('artifact store: S3 (versitygw)', function () {
  this.timeout(600_000);
  let settings: ConstructorParameters<typeof S3ArtifactStore>[0];
  let run = 0;

  before(async function () {
    const server = await ensureS3Server();
    if (server.state === 'no-go') {
      console.warn(`SKIPPED the S3 artifact store suite: ${server.reason}`);
      this.skip();
    }
    if (server.state !== 'ready') throw new Error(`the test S3 server is not available: ${server.reason}`);
    const credentials = { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey };
    const bucket = `browserfn-test-${randomBytes(4).toString('hex')}`;
    const admin = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    admin.destroy();
    settings = { kind: 's3', endpoint: server.endpoint, region: 'us-east-1', bucket, keyPrefix: '', forcePathStyle: true, credentials };
  });

  // Each test under a key prefix of its own, so tests see only their own objects.
  contract(async () => new S3ArtifactStore({ ...settings, keyPrefix: `run-${++run}-${randomBytes(3).toString('hex')}/` }));

  it('refuses wrong credentials with an error (never an empty answer)', async () => {
    const store = new S3ArtifactStore({ ...settings, credentials: { accessKeyId: settings.credentials!.accessKeyId, secretAccessKey: 'wrong' } });
    try {
      await assert.rejects(store.get('invocations/p1/a.json'));
    } finally {
      await store.close();
    }
  });
});
