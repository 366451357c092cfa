// A project secret is a Kubernetes Secret in the project's namespace, so the kube backend keeps
// it as a real Secret (covered by the cluster's encryption at rest and RBAC) and the embedded
// store encrypts its data like any Secret. Metadata carries everything the API lists; the value
// is only in `data`.
import { createHash } from 'node:crypto';
import { Kinds, newObject, type KubeObject } from '../cluster/objects.js';
import { Labels, Roles } from '../schemas/resources.js';

/** Annotations rather than labels: names may start or end with `_`, which label values may not. */
export const Annotations = {
  secretKey: 'browserfn.dev/secret-key',
  /** Millisecond creation time; metadata.creationTimestamp has whole seconds only. */
  createdAt: 'browserfn.dev/created-at',
} as const;

export const PROJECT_SECRET_TYPE = 'browserfn.dev/project-secret';
export const VALUE_KEY = 'value';

export const PROJECT_SECRET_SELECTOR = `${Labels.role}=${Roles.projectSecret}`;

/** Metadata of a project secret: what the API shows, plus the creation time it pages by. */
export interface SecretMeta {
  id: string;
  secretKey: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * The object name is derived from the secretKey, so "one secretKey per project" is enforced by the
 * store itself: a second create with the same name fails atomically with AlreadyExists.
 */
export const secretObjectName = (secretKey: string): string =>
  `secret-${createHash('sha256').update(secretKey, 'utf8').digest('hex').slice(0, 40)}`;

export function newSecretObject(project: string, meta: SecretMeta, value: string): KubeObject {
  return newObject<KubeObject>(
    Kinds.Secret,
    {
      name: secretObjectName(meta.secretKey),
      namespace: project,
      labels: { [Labels.role]: Roles.projectSecret, [Labels.secretId]: meta.id },
      annotations: { [Annotations.secretKey]: meta.secretKey, [Annotations.createdAt]: new Date(meta.createdAt).toISOString() },
    },
    { type: PROJECT_SECRET_TYPE, data: { [VALUE_KEY]: Buffer.from(value, 'utf8').toString('base64') } },
  );
}

/** The metadata of a stored project secret; undefined for objects being deleted or not ours. */
export function secretMeta(obj: KubeObject): SecretMeta | undefined {
  const id = obj.metadata.labels?.[Labels.secretId];
  const secretKey = obj.metadata.annotations?.[Annotations.secretKey];
  const createdAt = Date.parse(obj.metadata.annotations?.[Annotations.createdAt] ?? obj.metadata.creationTimestamp ?? '');
  if (obj.metadata.deletionTimestamp || !id || !secretKey || Number.isNaN(createdAt)) return undefined;
  return { id, secretKey, createdAt };
}

/** The plaintext value (Kubernetes keeps Secret data base64-encoded). */
export const secretValue = (obj: KubeObject): string => Buffer.from(obj.data?.[VALUE_KEY] ?? '', 'base64').toString('utf8');

export const withValue = (obj: KubeObject, value: string): KubeObject => ({
  ...obj,
  data: { ...obj.data, [VALUE_KEY]: Buffer.from(value, 'utf8').toString('base64') },
});
