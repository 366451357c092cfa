// HPKE (RFC 9180) base mode, DHKEM(X25519, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM: clients
// seal a secret value to the project's public key; only the façade, holding the private key, opens it.
import { Aes256Gcm, CipherSuite, HkdfSha256 } from '@hpke/core';
import { DhkemX25519HkdfSha256 } from '@hpke/dhkem-x25519';

export const hpkeSuite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

/** What the project key pair tells clients about the suite. */
export const SUITE = {
  mode: 'base',
  kem: 'DHKEM(X25519, HKDF-SHA256)',
  kdf: 'HKDF-SHA256',
  aead: 'AES-256-GCM',
  kemId: 0x0020,
  kdfId: 0x0001,
  aeadId: 0x0002,
} as const;

/** Length of the encapsulated key (the sender's ephemeral X25519 public key). */
export const ENC_BYTES = 32;
/** Length of the AES-GCM authentication tag at the end of every ciphertext. */
export const TAG_BYTES = 16;

/** The HPKE `info` and `aad` a sealed value is bound to. */
export interface SealBinding {
  info: Uint8Array;
  aad: Uint8Array;
}

const utf8 = new TextEncoder();

/** The `sealedSecretValue` form the public clients send: empty info and aad. */
export const UNBOUND: SealBinding = { info: new Uint8Array(0), aad: new Uint8Array(0) };

export const BOUND_INFO = 'browserfn.dev/secret-value/v1';

/** browserfn's own form: the ciphertext only opens as this project's secret of this name. */
export const boundTo = (project: string, secretKey: string): SealBinding => ({
  info: utf8.encode(BOUND_INFO),
  aad: utf8.encode(`${project}/${secretKey}`),
});

export interface Sealed {
  enc: Uint8Array;
  ciphertext: Uint8Array;
}

export async function sealValue(publicKeyRaw: Uint8Array, plaintext: Uint8Array, binding: SealBinding): Promise<Sealed> {
  const recipientPublicKey = await hpkeSuite.kem.deserializePublicKey(publicKeyRaw);
  const sender = await hpkeSuite.createSenderContext({ recipientPublicKey, info: binding.info });
  const ciphertext = await sender.seal(plaintext, binding.aad);
  return { enc: new Uint8Array(sender.enc), ciphertext: new Uint8Array(ciphertext) };
}

/** Throws when the value was sealed to another key, with another binding, or was altered. */
export async function openValue(recipientKey: CryptoKeyPair, sealed: Sealed, binding: SealBinding): Promise<Uint8Array> {
  const recipient = await hpkeSuite.createRecipientContext({ recipientKey, enc: sealed.enc, info: binding.info });
  return new Uint8Array(await recipient.open(sealed.ciphertext, binding.aad));
}
