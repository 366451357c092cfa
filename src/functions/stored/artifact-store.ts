// Artifacts (uploaded archives, built bundles) as opaque bytes in ConfigMaps: content-addressed
// chunks `chunk-<sha256 of the chunk>` under the object size limit, and a manifest naming them in
// order (total sha256, size), written last, so a write that fails midway leaves no artifact visible.
//
// Ownership, so that garbage collection does the counting: a chunk is owned by every manifest that
// lists it; a built artifact's manifest (`artifact-<sha256>`) by every Function whose versions run it
// (and by a Build until it publishes); an upload's manifest (`<build>-archive`) by its Build. While a
// write runs, its chunks are owned by the writer's owner (the Build), so that a crash leaves nothing
// the Build's deletion does not collect.
import { createHash } from 'node:crypto';
import { Kinds, newObject, ownerReferenceTo, type KubeObject, type OwnerReference } from '../../cluster/objects.js';
import { isAlreadyExists, isConflict, isNotFound, NotFoundError, type ClusterPort } from '../../cluster/port.js';
import { retryOnConflict } from '../../cluster/retry.js';
import { Labels, Roles } from '../../schemas/resources.js';

/**
 * Bytes per chunk. Kubernetes caps a ConfigMap at 1 MiB (1,048,576 bytes) of data and binaryData
 * counted decoded; 900 KiB (921,600 bytes) leaves room for the key and metadata. On the wire the
 * base64 body is 1.2 MB (the API server takes 3 MB), and etcd stores the raw bytes in protobuf
 * (its request limit is 1.5 MiB).
 */
export const ARTIFACT_CHUNK_BYTES = 900 * 1024;

const CHUNK_KEY = 'chunk';
const MANIFEST_KEY = 'manifest.json';
const SHA256 = /^[0-9a-f]{64}$/;

export interface ArtifactManifest {
  /** sha256 of the whole artifact, lowercase hex. */
  sha256: string;
  size: number;
  /** sha256 of each chunk, in order; the artifact is their concatenation. */
  chunks: string[];
}

export interface StoredArtifact {
  /** The manifest ConfigMap. */
  name: string;
  sha256: string;
  size: number;
}

export const chunkName = (sha256: string): string => `chunk-${sha256}`;

/** The manifest of a built artifact is named by its content, so identical artifacts are stored once per project. */
export const contentArtifactName = (sha256: string): string => `artifact-${sha256}`;

/** The sha256 a content-addressed manifest name stands for. */
export function artifactSha256Of(manifestName: string): string | undefined {
  const sha = manifestName.startsWith('artifact-') ? manifestName.slice('artifact-'.length) : '';
  return SHA256.test(sha) ? sha : undefined;
}

/** Too many bytes: `size` is what arrived before the write stopped (at least limit + 1). */
export class ArtifactTooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`The artifact is larger than ${limit} bytes (${size} bytes or more arrived)`);
  }
}

/** The bytes do not hash to what was announced or recorded. */
export class ArtifactIntegrityError extends Error {}

export interface ArtifactWrite {
  /** Owns the chunks while they are written, then the manifest (a Build). */
  owner: KubeObject;
  maxBytes: number;
  /** A fixed manifest name (uploads); by default the content-addressed `artifact-<sha256>`. */
  name?: string;
  /** The sha256 the writer announced; other bytes are refused and leave nothing behind. */
  expectedSha256?: string;
}

/**
 * Stores the bytes as they arrive (one chunk in memory at a time) and returns the manifest once it
 * is written. Writing what is already stored is fine: existing chunks and the manifest are adopted
 * (their content checked). On any failure the chunks this write staged are released again.
 */
export async function writeArtifact(cluster: ClusterPort, namespace: string, source: AsyncIterable<Buffer> | Buffer, write: ArtifactWrite): Promise<StoredArtifact> {
  const staging = ownerReferenceTo(write.owner, false);
  const staged = new Set<string>();
  const chunks: string[] = [];
  const total = createHash('sha256');
  let size = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async (bytes: Buffer): Promise<void> => {
    const sha = await putChunk(cluster, namespace, bytes, staging);
    staged.add(sha);
    chunks.push(sha);
  };
  try {
    for await (const piece of Buffer.isBuffer(source) ? [source] : source) {
      size += piece.length;
      if (size > write.maxBytes) throw new ArtifactTooLargeError(size, write.maxBytes);
      total.update(piece);
      pending.push(piece);
      pendingBytes += piece.length;
      while (pendingBytes >= ARTIFACT_CHUNK_BYTES) {
        const joined = Buffer.concat(pending, pendingBytes);
        await flush(joined.subarray(0, ARTIFACT_CHUNK_BYTES));
        pending = [joined.subarray(ARTIFACT_CHUNK_BYTES)];
        pendingBytes -= ARTIFACT_CHUNK_BYTES;
      }
    }
    if (pendingBytes > 0) await flush(Buffer.concat(pending, pendingBytes));
    const sha256 = total.digest('hex');
    if (write.expectedSha256 !== undefined && write.expectedSha256 !== sha256) {
      throw new ArtifactIntegrityError(`The artifact's bytes hash to sha256 ${sha256}, not the announced ${write.expectedSha256}`);
    }
    const manifest = await putManifest(cluster, namespace, write.name ?? contentArtifactName(sha256), { sha256, size, chunks }, staging);
    const manifestRef = ownerReferenceTo(manifest, false);
    for (const sha of staged) await setOwners(cluster, namespace, chunkName(sha), (owners) => [...without(owners, staging.uid), ...(owners.some((o) => o.uid === manifestRef.uid) ? [] : [manifestRef])]);
    return { name: manifest.metadata.name, sha256, size };
  } catch (err) {
    for (const sha of staged) await releaseChunk(cluster, namespace, chunkName(sha), staging.uid).catch(() => undefined);
    throw err;
  }
}

/** The manifest, or undefined when there is none (or it is not an artifact manifest). */
export async function readArtifactManifest(cluster: ClusterPort, namespace: string, name: string): Promise<ArtifactManifest | undefined> {
  const configMap = await cluster.resource(Kinds.ConfigMap).get(namespace, name);
  const raw = configMap?.data?.[MANIFEST_KEY];
  return raw === undefined ? undefined : (JSON.parse(raw) as ArtifactManifest);
}

/** The artifact's bytes, chunk by chunk (one in memory at a time). Consumers check the total sha256. */
export async function* artifactChunks(cluster: ClusterPort, namespace: string, manifest: ArtifactManifest): AsyncGenerator<Buffer> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  for (const [index, sha] of manifest.chunks.entries()) {
    const data = (await configMaps.get(namespace, chunkName(sha)))?.binaryData?.[CHUNK_KEY];
    if (data === undefined) throw new ArtifactIntegrityError(`Chunk ${index + 1} of ${manifest.chunks.length} (${chunkName(sha)}) of artifact ${manifest.sha256} is missing`);
    const bytes = Buffer.from(data, 'base64');
    // Chunks are named by their hash: a damaged one is caught here, before its bytes go anywhere.
    if (sha256Of(bytes) !== sha) throw new ArtifactIntegrityError(`Chunk ${index + 1} of ${manifest.chunks.length} (${chunkName(sha)}) of artifact ${manifest.sha256} is damaged: its bytes do not hash to its name`);
    yield bytes;
  }
}

/**
 * Adds owners to a manifest and drops the references `drop` selects (a Build handing a built
 * artifact over to the Functions that run it). Missing manifest: false.
 */
export async function reownArtifact(cluster: ClusterPort, namespace: string, name: string, add: OwnerReference[], drop: (ref: OwnerReference) => boolean): Promise<boolean> {
  try {
    await setOwners(cluster, namespace, name, (owners) => [...owners.filter((o) => !drop(o)), ...add.filter((a) => !owners.some((o) => o.uid === a.uid))]);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const without = (owners: OwnerReference[], uid: string): OwnerReference[] => owners.filter((o) => o.uid !== uid);

async function putChunk(cluster: ClusterPort, namespace: string, bytes: Buffer, staging: OwnerReference): Promise<string> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  const sha = sha256Of(bytes);
  const name = chunkName(sha);
  const chunk = newObject<KubeObject>(
    Kinds.ConfigMap,
    { name, namespace, labels: { [Labels.role]: Roles.artifactChunk }, ownerReferences: [staging] },
    { immutable: true, binaryData: { [CHUNK_KEY]: bytes.toString('base64') } },
  );
  return retryOnConflict(
    async () => {
      try {
        await configMaps.create(chunk);
        return sha;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      const existing = await configMaps.get(namespace, name);
      if (!existing) throw new RetryCreate();
      const stored = existing.binaryData?.[CHUNK_KEY];
      if (stored === undefined || sha256Of(Buffer.from(stored, 'base64')) !== sha) {
        // A stored chunk that does not hash to its name is damaged: replace it (readers check the whole artifact anyway).
        await configMaps.delete(namespace, name, { resourceVersion: existing.metadata.resourceVersion });
        throw new RetryCreate();
      }
      const owners = existing.metadata.ownerReferences ?? [];
      if (!owners.some((o) => o.uid === staging.uid)) await configMaps.update({ ...existing, metadata: { ...existing.metadata, ownerReferences: [...owners, staging] } });
      return sha;
    },
    { retriable: (err) => err instanceof RetryCreate || isConflict(err) || isNotFound(err) },
  );
}

/** A chunk vanished or was damaged between two steps: start the step again. */
class RetryCreate extends Error {}

async function putManifest(cluster: ClusterPort, namespace: string, name: string, manifest: ArtifactManifest, staging: OwnerReference): Promise<KubeObject> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  const object = newObject<KubeObject>(
    Kinds.ConfigMap,
    { name, namespace, labels: { [Labels.role]: Roles.artifact }, ownerReferences: [staging] },
    { immutable: true, data: { [MANIFEST_KEY]: JSON.stringify(manifest) } },
  );
  return retryOnConflict(
    async () => {
      try {
        return await configMaps.create(object);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      const existing = await configMaps.get(namespace, name);
      if (!existing) throw new RetryCreate();
      const stored = existing.data?.[MANIFEST_KEY] ? (JSON.parse(existing.data[MANIFEST_KEY]) as ArtifactManifest) : undefined;
      if (stored?.sha256 !== manifest.sha256 || stored.size !== manifest.size) throw new ArtifactIntegrityError(`ConfigMap ${name} already holds another artifact`);
      const owners = existing.metadata.ownerReferences ?? [];
      if (owners.some((o) => o.uid === staging.uid)) return existing;
      return configMaps.update({ ...existing, metadata: { ...existing.metadata, ownerReferences: [...owners, staging] } });
    },
    { retriable: (err) => err instanceof RetryCreate || isConflict(err) },
  );
}

async function setOwners(cluster: ClusterPort, namespace: string, name: string, change: (owners: OwnerReference[]) => OwnerReference[]): Promise<void> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  await retryOnConflict(async () => {
    const existing = await configMaps.get(namespace, name);
    if (!existing) throw new NotFoundError(`ConfigMap ${namespace}/${name} is missing`);
    const owners = existing.metadata.ownerReferences ?? [];
    const next = change(owners);
    if (next.length === owners.length && next.every((o, i) => o.uid === owners[i].uid)) return;
    await configMaps.update({ ...existing, metadata: { ...existing.metadata, ownerReferences: next } });
  });
}

/** Undoes a staged chunk: drops the writer's reference, and deletes the chunk if no one else holds it. */
async function releaseChunk(cluster: ClusterPort, namespace: string, name: string, stagingUid: string): Promise<void> {
  const configMaps = cluster.resource(Kinds.ConfigMap);
  await retryOnConflict(async () => {
    const existing = await configMaps.get(namespace, name);
    if (!existing) return;
    const owners = without(existing.metadata.ownerReferences ?? [], stagingUid);
    // With the version as precondition: a writer that adopted the chunk meanwhile keeps it.
    if (owners.length === 0) await configMaps.delete(namespace, name, { resourceVersion: existing.metadata.resourceVersion });
    else await configMaps.update({ ...existing, metadata: { ...existing.metadata, ownerReferences: owners } });
  });
}
