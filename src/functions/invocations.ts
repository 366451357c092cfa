// Invocation rules that both the façade and the controller apply.
import type { InvocationObject } from '../schemas/resources.js';

export const CREATED_AT_ANNOTATION = 'browserfn.dev/created-at';

export const isTerminal = (inv: InvocationObject): boolean => inv.status?.phase === 'COMPLETED' || inv.status?.phase === 'FAILED';

/** Millisecond creation time (metadata.creationTimestamp has only seconds): the queue order. */
export const queuedAt = (inv: InvocationObject): string =>
  inv.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? inv.metadata.creationTimestamp ?? '';
