// Project secrets in the cluster store: create, find, list, change the value, delete.
import { randomUUID } from 'node:crypto';
import { Kinds, type KubeObject } from '../cluster/objects.js';
import { isAlreadyExists, isConflict, isNotFound, type ClusterPort, type ResourceClient } from '../cluster/port.js';
import { retryOnConflict } from '../cluster/retry.js';
import { conflict, invalid, notFound } from '../domain/errors.js';
import { Labels } from '../schemas/resources.js';
import { assertUuid } from '../functions/lookup.js';
import { assertSecretKey } from './secret-key.js';
import { PROJECT_SECRET_SELECTOR, newSecretObject, secretMeta, withValue, type SecretMeta } from './objects.js';

/** Largest secret value, in bytes of UTF-8 (Kubernetes Secrets hold at most 1 MiB in all). */
export const MAX_VALUE_BYTES = 64 * 1024;

const secrets = (cluster: ClusterPort): ResourceClient => cluster.resource(Kinds.Secret);

export interface StoredSecret {
  meta: SecretMeta;
  object: KubeObject;
}

export function assertValueSize(value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) throw invalid(`The secret value is ${bytes} bytes; the limit is ${MAX_VALUE_BYTES} bytes`);
}

/** Creates a secret; `conflict` when the project already has one with this secretKey. */
export async function createSecret(cluster: ClusterPort, project: string, secretKey: string, value: string): Promise<SecretMeta> {
  assertSecretKey(secretKey);
  assertValueSize(value);
  const meta: SecretMeta = { id: randomUUID(), secretKey, createdAt: Date.now() };
  try {
    await secrets(cluster).create(newSecretObject(project, meta, value));
  } catch (err) {
    if (isAlreadyExists(err)) {
      throw conflict(`A secret named ${secretKey} already exists in this project: update the value of that secret instead, or delete it first`);
    }
    throw err;
  }
  return meta;
}

/** Every project secret with its metadata (objects being deleted are left out). */
export async function listSecrets(cluster: ClusterPort, project: string): Promise<StoredSecret[]> {
  const { items } = await secrets(cluster).list(project, { labelSelector: PROJECT_SECRET_SELECTOR });
  const stored: StoredSecret[] = [];
  for (const object of items) {
    const meta = secretMeta(object);
    if (meta) stored.push({ meta, object });
  }
  return stored;
}

/** The secret with this ID in the project, or undefined. A non-UUID ID is `invalid`. */
export async function findSecret(cluster: ClusterPort, project: string, id: string): Promise<StoredSecret | undefined> {
  assertUuid(id, 'secret ID');
  const { items } = await secrets(cluster).list(project, { labelSelector: `${PROJECT_SECRET_SELECTOR},${Labels.secretId}=${id.toLowerCase()}` });
  for (const object of items) {
    const meta = secretMeta(object);
    if (meta) return { meta, object };
  }
  return undefined;
}

/** The secret with this ID in the project; `not-found` when missing (also when it is another project's). */
export async function getSecret(cluster: ClusterPort, project: string, id: string): Promise<StoredSecret> {
  const found = await findSecret(cluster, project, id);
  if (!found) throw notFound(`Secret ${id} does not exist in this project`);
  return found;
}

/** Replaces the value; the ID, name and Function attachments stay. */
export async function updateSecretValue(cluster: ClusterPort, project: string, id: string, value: string): Promise<SecretMeta> {
  assertValueSize(value);
  return retryOnConflict(async () => {
    const { meta, object } = await getSecret(cluster, project, id);
    try {
      await secrets(cluster).update(withValue(object, value));
    } catch (err) {
      if (isNotFound(err)) throw notFound(`Secret ${id} does not exist in this project`);
      throw err;
    }
    return meta;
  });
}

/** Deletes the secret; `not-found` when missing. */
export async function deleteSecret(cluster: ClusterPort, project: string, id: string): Promise<SecretMeta> {
  const { meta, object } = await getSecret(cluster, project, id);
  try {
    await secrets(cluster).delete(project, object.metadata.name, { uid: object.metadata.uid });
  } catch (err) {
    // A uid precondition failure means the name now holds a re-created secret, not this one.
    if (isNotFound(err) || isConflict(err)) throw notFound(`Secret ${id} does not exist in this project`);
    throw err;
  }
  return meta;
}
