// The artifact store (src/functions/stored/artifact-store.ts) on both backends: chunking and
// reassembly across chunk boundaries, content-addressed dedupe with garbage collection by owners,
// and writes that fail midway leaving nothing behind.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { openKubeCluster } from '../../src/cluster/kube/index.js';
import { Kinds, newObject, ownerReferenceTo, type KubeObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import {
  ARTIFACT_CHUNK_BYTES,
  ArtifactIntegrityError,
  ArtifactTooLargeError,
  artifactChunks,
  chunkName,
  contentArtifactName,
  readArtifactManifest,
  reownArtifact,
  writeArtifact,
} from '../../src/functions/stored/artifact-store.js';
import { Labels, Roles, type BuildObject, type FunctionObject } from '../../src/schemas/resources.js';
import { controlPlaneUnavailable, ensureControlPlane } from '../support/controlplane.js';
import { eventually } from '../cluster/watch-collector.js';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

interface Backend {
  cluster: ClusterPort;
  cleanup(): Promise<void>;
}

function describeArtifactStore(name: string, open: () => Promise<Backend>): void {
  describe(`artifact store (${name})`, function () {
    this.timeout(180_000);
    let backend: Backend;
    let cluster: ClusterPort;
    let ns: string;

    before(async () => {
      backend = await open();
      cluster = backend.cluster;
    });
    after(async () => backend?.cleanup());
    beforeEach(async () => {
      ns = `artifacts-${randomBytes(4).toString('hex')}`;
      await cluster.resource(Kinds.Namespace).create(newObject(Kinds.Namespace, { name: ns }, {}));
    });

    const build = (): Promise<BuildObject> =>
      cluster.resource<BuildObject>(Kinds.Build).create(newObject<BuildObject>(Kinds.Build, { name: randomUUID(), namespace: ns }, { spec: { entrypoint: 'index.ts', archiveConfigMap: 'x-archive' } }));
    const fn = (fnName: string): Promise<FunctionObject> =>
      cluster.resource<FunctionObject>(Kinds.Function).create(newObject<FunctionObject>(Kinds.Function, { name: fnName, namespace: ns }, { spec: { name: fnName } }));
    const chunksStored = async (): Promise<KubeObject[]> => (await cluster.resource(Kinds.ConfigMap).list(ns, { labelSelector: `${Labels.role}=${Roles.artifactChunk}` })).items;
    const manifestsStored = async (): Promise<KubeObject[]> => (await cluster.resource(Kinds.ConfigMap).list(ns, { labelSelector: `${Labels.role}=${Roles.artifact}` })).items;
    const readBack = async (manifestName: string): Promise<Buffer> => {
      const manifest = await readArtifactManifest(cluster, ns, manifestName);
      assert.ok(manifest, `manifest ${manifestName}`);
      const parts: Buffer[] = [];
      for await (const part of artifactChunks(cluster, ns, manifest)) parts.push(part);
      return Buffer.concat(parts);
    };

    it('round-trips sizes around the chunk boundaries: 0, 1, one chunk, one byte over, two chunks and a bit', async () => {
      const owner = await build();
      for (const size of [0, 1, ARTIFACT_CHUNK_BYTES, ARTIFACT_CHUNK_BYTES + 1, 2 * ARTIFACT_CHUNK_BYTES + 7]) {
        const bytes = randomBytes(size);
        // Streamed in odd pieces, so chunk cuts fall inside pieces.
        const pieces = async function* (): AsyncGenerator<Buffer> {
          for (let at = 0; at < size; at += 300_001) yield bytes.subarray(at, at + 300_001);
        };
        const stored = await writeArtifact(cluster, ns, pieces(), { owner, maxBytes: 3 * ARTIFACT_CHUNK_BYTES });
        assert.deepEqual(stored, { name: contentArtifactName(sha256(bytes)), sha256: sha256(bytes), size });
        const manifest = await readArtifactManifest(cluster, ns, stored.name);
        assert.equal(manifest?.chunks.length, Math.ceil(size / ARTIFACT_CHUNK_BYTES), `chunks of ${size} bytes`);
        assert.ok((await readBack(stored.name)).equals(bytes), `${size} bytes come back unchanged`);
      }
      // Every chunk ConfigMap stays within Kubernetes' 1 MiB of data.
      for (const chunk of await chunksStored()) assert.ok(Buffer.byteLength(chunk.binaryData?.chunk ?? '', 'base64') <= ARTIFACT_CHUNK_BYTES);
    });

    it('stores an identical artifact once for two Functions; it goes only when the last of them does', async () => {
      const bytes = randomBytes(2 * ARTIFACT_CHUNK_BYTES + 1);
      const [first, second] = [await build(), await build()];
      const a = await writeArtifact(cluster, ns, bytes, { owner: first, maxBytes: bytes.length });
      const b = await writeArtifact(cluster, ns, bytes, { owner: second, maxBytes: bytes.length });
      assert.equal(a.name, b.name);
      assert.equal((await chunksStored()).length, 3, 'one set of chunks');
      assert.equal((await manifestsStored()).length, 1, 'one manifest');
      // Each chunk is owned by the manifest alone; the manifest by both Builds, then by the Functions they publish.
      const manifest = (await cluster.resource(Kinds.ConfigMap).get(ns, a.name))!;
      for (const chunk of await chunksStored()) assert.deepEqual(chunk.metadata.ownerReferences?.map((o) => o.uid), [manifest.metadata.uid]);
      const [fnA, fnB] = [await fn('fn-a'), await fn('fn-b')];
      assert.ok(await reownArtifact(cluster, ns, a.name, [ownerReferenceTo(fnA, false)], (ref) => ref.uid === first.metadata.uid));
      assert.ok(await reownArtifact(cluster, ns, a.name, [ownerReferenceTo(fnB, false)], (ref) => ref.uid === second.metadata.uid));
      const owned = (await cluster.resource(Kinds.ConfigMap).get(ns, a.name))!;
      assert.deepEqual(owned.metadata.ownerReferences?.map((o) => o.name).sort(), ['fn-a', 'fn-b']);

      await cluster.resource(Kinds.Build).delete(ns, first.metadata.name);
      await cluster.resource(Kinds.Build).delete(ns, second.metadata.name);
      await cluster.resource(Kinds.Function).delete(ns, 'fn-a');
      await eventually(async () => !(await cluster.resource(Kinds.ConfigMap).get(ns, a.name))?.metadata.ownerReferences?.some((o) => o.name === 'fn-a'), 'the dangling owner is dropped', 60_000);
      assert.ok((await readBack(a.name)).equals(bytes), 'still there for fn-b');

      await cluster.resource(Kinds.Function).delete(ns, 'fn-b');
      await eventually(async () => (await manifestsStored()).length === 0 && (await chunksStored()).length === 0, 'the manifest and its chunks are collected', 90_000);
    });

    it('leaves nothing behind when the bytes go over the limit midway', async () => {
      const owner = await build();
      const bytes = randomBytes(3 * ARTIFACT_CHUNK_BYTES);
      await assert.rejects(writeArtifact(cluster, ns, [bytes.subarray(0, 2 * ARTIFACT_CHUNK_BYTES), bytes.subarray(2 * ARTIFACT_CHUNK_BYTES)].values() as unknown as AsyncIterable<Buffer>, { owner, maxBytes: 2 * ARTIFACT_CHUNK_BYTES + 10 }), (err: Error) => {
        assert.ok(err instanceof ArtifactTooLargeError);
        assert.equal(err.limit, 2 * ARTIFACT_CHUNK_BYTES + 10);
        return true;
      });
      assert.deepEqual(await chunksStored(), [], 'the two chunks already written are released');
      assert.deepEqual(await manifestsStored(), []);
    });

    it('refuses bytes that do not hash to the announced sha256, leaving nothing behind', async () => {
      const owner = await build();
      await assert.rejects(writeArtifact(cluster, ns, randomBytes(ARTIFACT_CHUNK_BYTES + 5), { owner, maxBytes: 2 * ARTIFACT_CHUNK_BYTES, expectedSha256: '0'.repeat(64) }), ArtifactIntegrityError);
      assert.deepEqual(await chunksStored(), []);
      assert.deepEqual(await manifestsStored(), []);
    });

    it('keeps a chunk another artifact shares when one of them fails, and repairs a damaged chunk on the next write', async () => {
      const owner = await build();
      const shared = randomBytes(ARTIFACT_CHUNK_BYTES);
      const kept = await writeArtifact(cluster, ns, shared, { owner, maxBytes: ARTIFACT_CHUNK_BYTES });
      await assert.rejects(writeArtifact(cluster, ns, Buffer.concat([shared, randomBytes(10)]), { owner, maxBytes: ARTIFACT_CHUNK_BYTES + 10, expectedSha256: '1'.repeat(64) }), ArtifactIntegrityError);
      assert.ok((await readBack(kept.name)).equals(shared), 'the shared chunk survived the failed write');

      // Damage the chunk (immutable, so replaced under its name), as a disk or a person might.
      const configMaps = cluster.resource(Kinds.ConfigMap);
      const name = chunkName(sha256(shared));
      const original = (await configMaps.get(ns, name))!;
      await configMaps.delete(ns, name);
      await configMaps.create(newObject<KubeObject>(Kinds.ConfigMap, { name, namespace: ns, labels: original.metadata.labels, ownerReferences: original.metadata.ownerReferences }, { binaryData: { chunk: randomBytes(16).toString('base64') } }));
      await assert.rejects(readBack(kept.name), /is damaged: its bytes do not hash to its name/, 'readers check each chunk against its name');
      await writeArtifact(cluster, ns, shared, { owner, maxBytes: ARTIFACT_CHUNK_BYTES });
      assert.ok((await readBack(kept.name)).equals(shared), 'writing the same artifact again replaced the damaged chunk');
    });
  });
}

describeArtifactStore('embedded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'browserfn-artifacts-'));
  const cluster = await openEmbeddedCluster({ file: join(dir, 'store.db'), encryptionKey: randomBytes(32) });
  return {
    cluster,
    async cleanup() {
      await cluster.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const unavailable = controlPlaneUnavailable();
if (unavailable) {
  describe.skip(`artifact store (kube) — SKIPPED: ${unavailable}`, () => undefined);
} else {
  describeArtifactStore('kube, garbage collected by kube-controller-manager', async () => {
    const plane = await ensureControlPlane();
    if (plane.state !== 'ready') throw new Error(`the test control plane is not available: ${plane.reason}`);
    const cluster = await openKubeCluster({ kubeconfigPath: plane.kubeconfigPath });
    return {
      cluster,
      async cleanup() {
        for (const ns of (await cluster.resource(Kinds.Namespace).list(undefined)).items) {
          if (ns.metadata.name.startsWith('artifacts-') && !ns.metadata.deletionTimestamp) await cluster.resource(Kinds.Namespace).delete(undefined, ns.metadata.name).catch(() => undefined);
        }
        await cluster.close();
      },
    };
  });
}
