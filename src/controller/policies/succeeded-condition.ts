// The Succeeded condition Builds and Invocations carry, from their phase and cause.
import type { Cause } from '../../schemas/resources.js';
import type { Condition } from '../../cluster/objects.js';

export function succeededCondition(status: { phase?: string; cause?: Cause }, generation: number | undefined): Condition {
  return {
    type: 'Succeeded',
    status: status.phase === 'COMPLETED' ? 'True' : status.phase === 'FAILED' ? 'False' : 'Unknown',
    reason: status.cause?.code ?? status.phase ?? 'PENDING',
    message: status.cause?.message,
    observedGeneration: generation,
  };
}
