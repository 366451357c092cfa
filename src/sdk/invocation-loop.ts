// The runtime phase: take invocations from the runtime API one at a time and run the named handler.
import { toErrorReport } from './error-report.js';
import type { FunctionRegistry } from './registry.js';
import type { RuntimeApiClient } from './runtime-api-client.js';
import type { FunctionContext } from './types.js';

interface InvocationEvent {
  functionName: string;
  params: Record<string, unknown>;
  context: FunctionContext;
}

export async function serveInvocations(client: RuntimeApiClient, registry: FunctionRegistry): Promise<never> {
  for (;;) await serveOneInvocation(client, registry);
}

export async function serveOneInvocation(client: RuntimeApiClient, registry: FunctionRegistry): Promise<void> {
  const { requestId, event } = await client.next();
  const parsed = parseEvent(event, requestId);
  if (typeof parsed === 'string') {
    await client.fail(requestId, { errorMessage: parsed, errorType: 'InvalidInvocationEvent', stackTrace: [] });
    return;
  }
  const definition = registry.get(parsed.functionName);
  if (!definition) {
    await client.fail(requestId, {
      errorMessage: `Function "${parsed.functionName}" is not defined in this bundle`,
      errorType: 'FunctionNotFound',
      stackTrace: [],
    });
    return;
  }
  let result: unknown;
  // Like a Lambda runtime, stay alive while the handler is pending, even when it waits on nothing
  // Node tracks (a promise that never settles): the deadline, not an early exit, ends it.
  const keepAlive = setInterval(() => undefined, 60_000);
  try {
    result = await definition.handler(parsed.context, parsed.params);
  } catch (thrown) {
    await client.fail(requestId, toErrorReport(thrown));
    return;
  } finally {
    clearInterval(keepAlive);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(result);
  } catch (thrown) {
    await client.fail(requestId, {
      errorMessage: `The handler's return value cannot be serialized as JSON: ${(thrown as Error).message}`,
      errorType: 'ResultNotSerializable',
      stackTrace: [],
    });
    return;
  }
  await client.respond(requestId, json);
}

/** The event, or why it is unusable. */
function parseEvent(event: unknown, requestId: string): InvocationEvent | string {
  if (!isRecord(event)) return 'invocation event is not an object';
  const { functionName, params, context } = event;
  if (typeof functionName !== 'string' || !functionName) return 'invocation event has no functionName';
  if (params !== undefined && params !== null && !isRecord(params)) return 'invocation event params must be an object';
  if (!isRecord(context) || !isRecord(context.session)) return 'invocation event has no context.session';
  const { id, connectUrl } = context.session;
  if (typeof id !== 'string' || typeof connectUrl !== 'string') return 'invocation event session needs id and connectUrl';
  const invocation = isRecord(context.invocation) ? context.invocation : {};
  return {
    functionName,
    params: (params as Record<string, unknown> | undefined) ?? {},
    context: {
      session: { id, connectUrl },
      secrets: isRecord(context.secrets) ? stringEntries(context.secrets) : {},
      invocation: {
        id: typeof invocation.id === 'string' ? invocation.id : requestId,
        region: typeof invocation.region === 'string' ? invocation.region : 'us-west-2',
      },
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringEntries(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
