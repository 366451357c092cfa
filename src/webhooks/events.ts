// The events an Invocation or a Build has reached, read from its status (level-triggered: the same
// object always yields the same events). Each event's ID is derived from the object's uid and the
// event type, so an event keeps one ID through retries and restarts, and receivers can de-duplicate.
import { createHash } from 'node:crypto';
import type { BuildObject, InvocationObject } from '../schemas/resources.js';
import { buildView, invocationView } from '../functions/views.js';
import { queuedAt } from '../functions/invocations.js';
import type { EventType } from './event-types.js';

export interface WebhookEvent {
  id: string;
  type: EventType;
  /** The invocation's or build's ID. */
  resourceId: string;
  /** When it happened (ms): a webhook hears only of events after it was registered. */
  occurredAt: number;
  /** The resource as the API shows it when the event is recorded, with the status of this event. */
  data: Record<string, unknown>;
}

export const eventId = (uid: string, type: EventType): string => `evt_${createHash('sha256').update(`${uid}/${type}`).digest('hex').slice(0, 32)}`;

/** The request body of every delivery of the event: the envelope the receiver verifies. */
export const envelope = (event: WebhookEvent): string => JSON.stringify({ id: event.id, type: event.type, resourceId: event.resourceId, data: event.data });

const ms = (iso: string | undefined): number | undefined => {
  const t = Date.parse(iso ?? '');
  return Number.isNaN(t) ? undefined : t;
};

export function invocationEvents(inv: InvocationObject): WebhookEvent[] {
  const uid = inv.metadata.uid;
  if (!uid) return [];
  const status = inv.status ?? {};
  const phase = status.phase ?? 'PENDING';
  const terminal = phase === 'COMPLETED' || phase === 'FAILED';
  // params and results stay out: they can be large or sensitive; GET the invocation for them.
  const { params: _params, results: _results, ...view } = invocationView(inv);
  const event = (type: EventType, state: string, at: number | undefined): WebhookEvent[] =>
    at === undefined ? [] : [{ id: eventId(uid, type), type, resourceId: inv.metadata.name, occurredAt: at, data: { ...view, status: state } }];
  return [
    ...event('functions.invocations.pending', 'PENDING', ms(queuedAt(inv))),
    // A handler that started, even when the controller saw the report before the pod ran (a cancelled queued one never did).
    ...(phase === 'RUNNING' || (terminal && status.startedAt) ? event('functions.invocations.running', 'RUNNING', ms(status.startedAt)) : []),
    ...(phase === 'COMPLETED' ? event('functions.invocations.completed', 'COMPLETED', ms(status.endedAt)) : []),
    // Cancelled invocations end FAILED (cause CANCELLED), so they are failed events too.
    ...(phase === 'FAILED' ? event('functions.invocations.failed', 'FAILED', ms(status.endedAt)) : []),
  ];
}

export function buildEvents(build: BuildObject): WebhookEvent[] {
  const uid = build.metadata.uid;
  if (!uid) return [];
  const status = build.status ?? {};
  const phase = status.phase ?? 'PENDING';
  const terminal = phase === 'COMPLETED' || phase === 'FAILED';
  const view = buildView(build);
  const event = (type: EventType, state: string, at: number | undefined): WebhookEvent[] =>
    at === undefined ? [] : [{ id: eventId(uid, type), type, resourceId: build.metadata.name, occurredAt: at, data: { ...view, status: state } }];
  return [
    ...(phase === 'RUNNING' || (terminal && status.startedAt) ? event('functions.builds.running', 'RUNNING', ms(status.startedAt)) : []),
    ...(phase === 'COMPLETED' ? event('functions.builds.completed', 'COMPLETED', ms(status.endedAt)) : []),
    ...(phase === 'FAILED' ? event('functions.builds.failed', 'FAILED', ms(status.endedAt)) : []),
  ];
}
