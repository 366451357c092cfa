// Encryption at rest for the embedded store (Secrets), like the API server's aesgcm provider:
// AES-256-GCM with a fresh 96-bit nonce per write. The row's identity is bound as additional
// authenticated data, so a sealed value copied onto another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'aesgcm:v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class Sealer {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key) || key.length !== 32) {
      throw new Error(`encryptionKey must be a 32-byte Buffer (AES-256); got ${Buffer.isBuffer(key) ? `${key.length} bytes` : typeof key}`);
    }
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Throws when the value was sealed under another key or for another context. */
  open(sealed: string, context: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error(`stored value for ${context} is not sealed with ${PREFIX.slice(0, -1)}`);
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`cannot decrypt the stored value for ${context}: the encryption key differs from the one it was written with, or the data is damaged`);
    }
  }
}
