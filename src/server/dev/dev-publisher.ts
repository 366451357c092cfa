// Publishes the dev project the way `browserfn publish` does, through the same use case as the
// façade (pack, createBuild, the real build pod: install, bundle, introspection), and keeps the
// Functions of the last build that succeeded: a failed build leaves them in place and says why.
import { existsSync } from 'node:fs';
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import { createBuild } from '../../functions/builds.js';
import type { BuildObject, FunctionObject } from '../../schemas/resources.js';
import { packProject } from '../../cli/pack.js';
import { readLocalSecrets } from './local-secrets.js';
import { applyLocalSecrets } from './dev-secrets.js';

export interface DevPublisherOptions {
  cluster: ClusterPort;
  project: string;
  entry: string;
  maxArchiveBytes: number;
  secretsFile?: string;
  /** The secrets file is the default one, read only while it exists (it may come later). */
  secretsFileOptional?: boolean;
  /** How often the build is looked at while it runs. */
  pollMs?: number;
}

export type PublishResult = { ok: true; buildId: string; functions: string[] } | { ok: false; why: string };

export class DevPublisher {
  /** The Functions of the last good build, by name. */
  #functions = new Map<string, FunctionObject>();
  #lastFailure: string | undefined = 'the first build has not finished yet';

  constructor(private readonly options: DevPublisherOptions) {}

  /** The Function of this name in the last good build; its current object (secrets, version) is read at invoke. */
  async function(name: string): Promise<FunctionObject | undefined> {
    const known = this.#functions.get(name);
    if (!known) return undefined;
    return (await this.options.cluster.resource<FunctionObject>(Kinds.Function).get(this.options.project, known.metadata.name)) ?? undefined;
  }

  /** Why nothing can be invoked yet (no good build), if so. */
  get unavailable(): string | undefined {
    return this.#functions.size === 0 ? this.#lastFailure : undefined;
  }

  get names(): string[] {
    return [...this.#functions.keys()].sort();
  }

  async publish(): Promise<PublishResult> {
    try {
      const result = await this.#publish();
      if (!result.ok) this.#lastFailure = result.why;
      return result;
    } catch (err) {
      this.#lastFailure = (err as Error).message;
      return { ok: false, why: this.#lastFailure };
    }
  }

  async #publish(): Promise<PublishResult> {
    const { cluster, project, entry, maxArchiveBytes, secretsFile, secretsFileOptional } = this.options;
    // Read first: a bad secrets file fails this build before anything is stored.
    const secrets = secretsFile && (!secretsFileOptional || existsSync(secretsFile)) ? readLocalSecrets(secretsFile) : new Map<string, string>();
    // The secrets reach the Functions as secrets only, never inside the build's archive.
    const packed = await packProject(entry, secretsFile ? [secretsFile] : []);
    if (packed.archive.length > maxArchiveBytes) {
      return { ok: false, why: `The project archive is ${packed.archive.length} bytes, over the ${maxArchiveBytes}-byte limit (BROWSERFN_MAX_ARCHIVE_BYTES)` };
    }
    const created = await createBuild(cluster, project, { entrypoint: packed.entrypoint }, packed.archive);
    const build = await this.#ended(created.metadata.name);
    if (build.status?.phase !== 'COMPLETED') {
      const cause = build.status?.cause;
      return { ok: false, why: cause ? `${cause.code}: ${cause.message ?? ''}` : 'the build failed' };
    }
    const built = build.status.builtFunctions ?? [];
    const { items } = await cluster.resource<FunctionObject>(Kinds.Function).list(project);
    const functions = items.filter((fn) => built.some((b) => b.id === fn.metadata.uid));
    await applyLocalSecrets(cluster, project, secrets, functions);
    this.#functions = new Map(functions.map((fn) => [fn.spec.name, fn]));
    this.#lastFailure = undefined;
    return { ok: true, buildId: build.metadata.name, functions: this.names };
  }

  async #ended(name: string): Promise<BuildObject> {
    const builds = this.options.cluster.resource<BuildObject>(Kinds.Build);
    for (;;) {
      const build = await builds.get(this.options.project, name);
      if (!build) throw new Error(`build ${name} disappeared`);
      if (build.status?.phase === 'COMPLETED' || build.status?.phase === 'FAILED') return build;
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
    }
  }
}
