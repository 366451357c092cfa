// The Ready condition of a Function, from its spec and, for hand-written source, the Build of it.
import type { BuildObject, FunctionObject } from '../../schemas/resources.js';
import type { Condition } from '../../cluster/objects.js';

export type Readiness = Omit<Condition, 'type' | 'lastTransitionTime' | 'observedGeneration'>;

/** What the Function's source is: none (published by upload), unreadable, or built by `build`. */
export type SourceState = { kind: 'none' } | { kind: 'unavailable'; problem: string } | { kind: 'built-by'; build: BuildObject | undefined };

export function functionReadiness(fn: FunctionObject, source: SourceState): Readiness {
  if (source.kind === 'unavailable') return { status: 'False', reason: 'SourceUnavailable', message: source.problem };
  if (source.kind === 'built-by' && source.build) {
    const { build } = source;
    const phase = build.status?.phase;
    if (phase === 'FAILED') return { status: 'False', reason: 'BuildFailed', message: `Build ${build.metadata.name}: ${build.status?.cause?.code}: ${build.status?.cause?.message ?? ''}` };
    if (phase !== 'COMPLETED') return { status: 'Unknown', reason: 'Building', message: `Build ${build.metadata.name} is ${phase ?? 'PENDING'}` };
  }
  return fn.spec.version
    ? { status: 'True', reason: 'Published', message: `Version ${fn.spec.version.number} is current` }
    : { status: 'False', reason: 'NoVersion', message: 'Nothing published yet: publish it, or give spec.source' };
}
