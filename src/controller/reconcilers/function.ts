// Function reconciler: keeps status (observedGeneration, currentVersion, Ready) true to the spec,
// and builds hand-written manifests: a Function whose spec.source changed gets a Build of that
// source, which publishes its version like any upload.
import { createHash } from 'node:crypto';
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import type { Logger } from '../../config/logger.js';
import { Labels, type BuildObject, type FunctionObject, type FunctionStatus } from '../../schemas/resources.js';
import { createBuild } from '../../functions/builds.js';
import { archiveSource, SOURCE_ENTRYPOINT } from '../../functions/source-archive.js';
import type { Informer } from '../runtime/informer.js';
import type { Reconciler, Request, Result } from '../runtime/controller.js';
import { setCondition } from '../conditions.js';
import { functionReadiness, type SourceState } from '../policies/function-ready.js';

export const SOURCE_HASH_LABEL = 'browserfn.dev/source-hash';

export interface FunctionReconcilerDeps {
  cluster: ClusterPort;
  builds: Informer<BuildObject>;
  log: Logger;
}

export class FunctionReconciler implements Reconciler {
  constructor(private readonly deps: FunctionReconcilerDeps) {}

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const fn = await this.deps.cluster.resource<FunctionObject>(Kinds.Function).get(namespace, name);
    if (!fn || fn.metadata.deletionTimestamp) return;
    const patch: FunctionStatus = { currentVersion: fn.spec.version?.number, builtSourceHash: fn.status?.builtSourceHash };

    const source = fn.spec.source ? await this.readSource(fn) : undefined;
    let state: SourceState = { kind: 'none' };
    if (source && 'problem' in source) {
      state = { kind: 'unavailable', problem: source.problem };
    } else if (source) {
      // Built already: its Build still tells how that went. Changed: build it (once per hash).
      const build = source.hash === fn.status?.builtSourceHash ? await this.findBuild(fn, source.hash) : await this.buildFor(fn, source.text, source.hash);
      const phase = build?.status?.phase;
      if (phase === 'COMPLETED' || phase === 'FAILED') patch.builtSourceHash = source.hash;
      state = { kind: 'built-by', build };
    }
    const ready = functionReadiness(fn, state);

    const conditions = setCondition(fn.status?.conditions, { type: 'Ready', ...ready, observedGeneration: fn.metadata.generation });
    const next: FunctionStatus = { ...fn.status, ...patch, observedGeneration: fn.metadata.generation, conditions };
    if (JSON.stringify(next) !== JSON.stringify(fn.status)) {
      await this.deps.cluster.resource<FunctionObject>(Kinds.Function).updateStatus({ ...fn, status: next });
    }
  }

  private async readSource(fn: FunctionObject): Promise<{ text: string; hash: string } | { problem: string }> {
    const { inline, configMapRef } = fn.spec.source!;
    let text = inline;
    if (configMapRef) {
      const cm = await this.deps.cluster.resource(Kinds.ConfigMap).get(fn.metadata.namespace, configMapRef.name);
      text = cm?.data?.[configMapRef.key];
      if (text === undefined) return { problem: `ConfigMap ${configMapRef.name} has no key "${configMapRef.key}"` };
    }
    if (!text) return { problem: 'spec.source needs inline source or a configMapRef' };
    return { text, hash: createHash('sha256').update(fn.spec.name).update('\0').update(text).digest('hex').slice(0, 32) };
  }

  /** One Build per source hash: found by label when it exists, created otherwise. */
  private async buildFor(fn: FunctionObject, text: string, hash: string): Promise<BuildObject> {
    const found = await this.findBuild(fn, hash);
    if (found) return found;
    this.deps.log.info({ function: fn.metadata.name, hash }, 'building the source of a hand-written Function');
    return createBuild(this.deps.cluster, fn.metadata.namespace!, { entrypoint: SOURCE_ENTRYPOINT, functionNames: [fn.spec.name] }, await archiveSource(text), {
      labels: { [Labels.functionUid]: fn.metadata.uid!, [SOURCE_HASH_LABEL]: hash },
      owner: fn,
    });
  }

  private async findBuild(fn: FunctionObject, hash: string): Promise<BuildObject | undefined> {
    const cached = this.deps.builds.list(
      (b) => b.metadata.namespace === fn.metadata.namespace && b.metadata.labels?.[Labels.functionUid] === fn.metadata.uid && b.metadata.labels?.[SOURCE_HASH_LABEL] === hash,
    );
    if (cached[0]) return cached[0];
    // The cache may not have a Build created a moment ago yet: ask the store before making another.
    const listed = await this.deps.cluster
      .resource<BuildObject>(Kinds.Build)
      .list(fn.metadata.namespace, { labelSelector: `${Labels.functionUid}=${fn.metadata.uid},${SOURCE_HASH_LABEL}=${hash}` });
    return listed.items[0];
  }
}
