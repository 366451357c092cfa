// The S3 backend of the artifact store: one object per key in one bucket (under an optional key
// prefix), through the AWS SDK, so any S3-compatible server works (AWS S3, MinIO, Ceph RGW,
// versitygw). A PUT is atomic in S3: readers see the old object or the new one.
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, NoSuchKey } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import type { ArtifactStoreSettings } from '../config/settings.js';
import { assertArtifactKey, type ArtifactEntry, type ArtifactStore } from './port.js';

export type S3ArtifactSettings = Extract<ArtifactStoreSettings, { kind: 's3' }>;

export class S3ArtifactStore implements ArtifactStore {
  readonly backend = 's3';
  private readonly client: S3Client;

  constructor(private readonly settings: S3ArtifactSettings) {
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Checksums only where the server asks for them: S3-compatible servers differ in support.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    assertArtifactKey(key);
    return this.settings.keyPrefix + key;
  }

  async put(key: string, body: Buffer): Promise<void> {
    // Content-MD5 makes the server refuse a body that arrived damaged.
    const md5 = createHash('md5').update(body).digest('base64');
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Body: body, ContentMD5: md5, ContentType: 'application/json' }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return Buffer.from(await response.Body!.transformToByteArray());
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
  }

  async list(prefix: string): Promise<ArtifactEntry[]> {
    assertArtifactKey(prefix, { prefix: true });
    const entries: ArtifactEntry[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.settings.keyPrefix + prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        entries.push({ key: object.Key.slice(this.settings.keyPrefix.length), size: object.Size ?? 0, lastModifiedMs: object.LastModified?.getTime() ?? 0 });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return entries.sort((a, b) => a.key.localeCompare(b.key));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
