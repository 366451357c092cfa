// The retention and artifact store settings: defaults, and a message naming the variable for each bad value.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/settings.js';

describe('retention and artifact store settings', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'browserfn-settings-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadSettings({ dataDir, env: { BROWSERFN_API_KEY: 'k', ...env } });

  it('defaults: an hour in the cluster store, 30 days archived under the data dir, 10 versions', () => {
    const settings = load({});
    assert.deepEqual(settings.retention, { finishedTtlSeconds: 3600, retentionDays: 30, keepVersions: 10, sweepIntervalSeconds: 3600 });
    assert.deepEqual(settings.artifactStore, { kind: 'filesystem', dir: join(dataDir, 'artifacts') });
  });

  it('reads an S3-compatible store: path-style with an endpoint, credentials as a pair', () => {
    const settings = load({
      BROWSERFN_ARTIFACT_STORE: 's3',
      BROWSERFN_S3_ENDPOINT: 'http://minio:9000',
      BROWSERFN_S3_BUCKET: 'archive-1',
      BROWSERFN_S3_KEY_PREFIX: 'browserfn/prod/',
      BROWSERFN_S3_ACCESS_KEY_ID: 'id',
      BROWSERFN_S3_SECRET_ACCESS_KEY: 'secret',
      BROWSERFN_RETENTION_DAYS: '0.5',
    });
    assert.deepEqual(settings.artifactStore, {
      kind: 's3',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      bucket: 'archive-1',
      keyPrefix: 'browserfn/prod/',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    assert.equal(settings.retention.retentionDays, 0.5);
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ BROWSERFN_ARTIFACT_STORE: 'gcs' }, /BROWSERFN_ARTIFACT_STORE must be one of filesystem, s3/],
    [{ BROWSERFN_ARTIFACT_STORE: 's3' }, /BROWSERFN_S3_BUCKET must name the bucket/],
    [{ BROWSERFN_ARTIFACT_STORE: 's3', BROWSERFN_S3_BUCKET: 'Bad_Bucket' }, /BROWSERFN_S3_BUCKET/],
    [{ BROWSERFN_ARTIFACT_STORE: 's3', BROWSERFN_S3_BUCKET: 'ok-bucket', BROWSERFN_S3_KEY_PREFIX: 'no-slash' }, /BROWSERFN_S3_KEY_PREFIX must be empty or folders ending in '\/'/],
    [{ BROWSERFN_ARTIFACT_STORE: 's3', BROWSERFN_S3_BUCKET: 'ok-bucket', BROWSERFN_S3_ACCESS_KEY_ID: 'id' }, /Set both BROWSERFN_S3_ACCESS_KEY_ID and BROWSERFN_S3_SECRET_ACCESS_KEY/],
    [{ BROWSERFN_FINISHED_TTL_SECONDS: '-1' }, /BROWSERFN_FINISHED_TTL_SECONDS must be an integer/],
    [{ BROWSERFN_RETENTION_DAYS: '0' }, /BROWSERFN_RETENTION_DAYS must be a number/],
    [{ BROWSERFN_KEEP_VERSIONS: '0' }, /BROWSERFN_KEEP_VERSIONS must be an integer from 1/],
    [{ BROWSERFN_RETENTION_SWEEP_SECONDS: 'hourly' }, /BROWSERFN_RETENTION_SWEEP_SECONDS/],
  ];
  for (const [env, message] of bad) it(`refuses ${JSON.stringify(env)}`, () => assert.throws(() => load(env), message));
});
