// Invoke by name, synchronously: the production invoke use case (params size and schema,
// sessionCreateParams rules, timeout, queue) creates the Invocation; the controllers and a real
// browser pod run it; this waits for its terminal status.
import { Kinds } from '../../cluster/objects.js';
import type { ClusterPort } from '../../cluster/port.js';
import { notFound, DomainError } from '../../domain/errors.js';
import type { Archive } from '../../functions/archived/archive.js';
import { requestCancel } from '../../functions/cancel.js';
import { invokeFunction, type InvokeContext, type InvokeRequest } from '../../functions/invoke.js';
import { invocationLogs, isTerminal } from '../../functions/invocations.js';
import type { InvocationObject } from '../../schemas/resources.js';
import type { DevPublisher } from './dev-publisher.js';

export interface DevInvokerOptions {
  cluster: ClusterPort;
  archive: Archive;
  project: string;
  publisher: DevPublisher;
  invokeContext: InvokeContext;
  /** Told of each invocation once it exists (names its pod's console lines). */
  onCreated?: (invocation: InvocationObject) => void;
  pollMs?: number;
}

/** Nothing is published yet: no good build so far. */
export class NotReadyError extends Error {}

/** Once `abandoned` fires (the caller went away), the invocation is cancelled as with the cancel route. */
export async function invokeByName(options: DevInvokerOptions, name: string, request: InvokeRequest, abandoned?: AbortSignal): Promise<InvocationObject> {
  const { cluster, project, publisher, invokeContext } = options;
  const waiting = publisher.unavailable;
  if (waiting !== undefined) throw new NotReadyError(`No build of the project has succeeded yet: ${waiting}`);
  const fn = await publisher.function(name);
  if (!fn) {
    throw notFound(`Function "${name}" not found in registry. Make sure it is defined with defineFn() in your entrypoint file (defined now: ${publisher.names.join(', ') || 'none'})`);
  }
  const created = await invokeFunction(cluster, fn, request, invokeContext);
  options.onCreated?.(created);
  const cancel = () => void requestCancel(cluster, options.archive, project, created.metadata.name).catch(() => undefined);
  abandoned?.addEventListener('abort', cancel, { once: true });
  try {
    const invocations = cluster.resource<InvocationObject>(Kinds.Invocation);
    for (;;) {
      const current = await invocations.get(project, created.metadata.name);
      if (!current) throw new DomainError('conflict', `Invocation ${created.metadata.name} disappeared before it ended`);
      if (isTerminal(current)) return current;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    }
  } finally {
    abandoned?.removeEventListener('abort', cancel);
  }
}

/** The lines of the handler's error (the pod logs its stack last, at error level), for the hosted error's stackTrace. */
export async function errorStack(options: DevInvokerOptions, invocation: InvocationObject): Promise<string[]> {
  const logs = await invocationLogs(options.cluster, options.archive, { invocation });
  const last = logs.filter((entry) => entry.level === 'error').at(-1);
  return last ? last.message.split('\n') : [];
}
