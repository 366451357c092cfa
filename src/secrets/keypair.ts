// Each project has one key set, kept as a Kubernetes Secret in its namespace and made on first
// use: the HPKE key pair clients seal values to, and the HMAC key that signs list cursors.
import { randomBytes, randomUUID } from 'node:crypto';
import { Kinds, newObject, type KubeObject } from '../cluster/objects.js';
import { isAlreadyExists, type ClusterPort } from '../cluster/port.js';
import { hpkeSuite } from './hpke.js';

export const KEYS_SECRET_NAME = 'browserfn-secrets-keys';
export const KEYS_SECRET_TYPE = 'browserfn.dev/secrets-keys';
const KEYPAIR_ID_ANNOTATION = 'browserfn.dev/keypair-id';

export interface ProjectKeys {
  /** Identifies the key pair; clients echo it as `keypairId` with sealed values. */
  keypairId: string;
  /** Raw 32-byte X25519 public key. */
  publicKey: Uint8Array;
  keyPair: CryptoKeyPair;
  /** HMAC-SHA256 key for list cursors. */
  cursorKey: Buffer;
}

const b64 = (bytes: ArrayBuffer | Uint8Array | Buffer): string => Buffer.from(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes).toString('base64');

/** The project's keys, created (once, race-free: the first create wins) when missing. */
export async function projectKeys(cluster: ClusterPort, project: string): Promise<ProjectKeys> {
  const client = cluster.resource(Kinds.Secret);
  let obj = await client.get(project, KEYS_SECRET_NAME);
  if (!obj) {
    try {
      obj = await client.create(await newKeysObject(project));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      obj = await client.get(project, KEYS_SECRET_NAME);
      if (!obj) throw err;
    }
  }
  return readKeys(obj);
}

async function newKeysObject(project: string): Promise<KubeObject> {
  const pair = await hpkeSuite.kem.generateKeyPair();
  return newObject<KubeObject>(
    Kinds.Secret,
    { name: KEYS_SECRET_NAME, namespace: project, annotations: { [KEYPAIR_ID_ANNOTATION]: randomUUID() } },
    {
      type: KEYS_SECRET_TYPE,
      data: {
        publicKey: b64(await hpkeSuite.kem.serializePublicKey(pair.publicKey)),
        privateKey: b64(await hpkeSuite.kem.serializePrivateKey(pair.privateKey)),
        cursorKey: b64(randomBytes(32)),
      },
    },
  );
}

async function readKeys(obj: KubeObject): Promise<ProjectKeys> {
  const keypairId = obj.metadata.annotations?.[KEYPAIR_ID_ANNOTATION];
  const field = (name: string): Buffer => {
    const value = obj.data?.[name];
    if (!value) throw new Error(`Secret ${obj.metadata.namespace}/${obj.metadata.name} lacks data.${name}`);
    return Buffer.from(value, 'base64');
  };
  if (!keypairId) throw new Error(`Secret ${obj.metadata.namespace}/${obj.metadata.name} lacks the ${KEYPAIR_ID_ANNOTATION} annotation`);
  const publicKey = new Uint8Array(field('publicKey'));
  const keyPair: CryptoKeyPair = {
    publicKey: await hpkeSuite.kem.deserializePublicKey(publicKey),
    privateKey: await hpkeSuite.kem.deserializePrivateKey(new Uint8Array(field('privateKey'))),
  };
  return { keypairId, publicKey, keyPair, cursorKey: field('cursorKey') };
}
