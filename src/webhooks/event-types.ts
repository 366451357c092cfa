// The event types a webhook may subscribe to: those the public API lists, no others.
import { invalid } from '../domain/errors.js';

export const EVENT_TYPES = [
  'functions.builds.running',
  'functions.builds.completed',
  'functions.builds.failed',
  'functions.invocations.pending',
  'functions.invocations.running',
  'functions.invocations.completed',
  'functions.invocations.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** The subscribed types, duplicates removed; `invalid` naming the allowed types when one is unknown or none is given. */
export function parseEventTypes(values: readonly string[]): EventType[] {
  const unknown = values.filter((v) => !isEventType(v));
  if (unknown.length > 0) {
    throw invalid(`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((v) => `"${v.slice(0, 64)}"`).join(', ')}; the allowed types are ${EVENT_TYPES.join(', ')}`);
  }
  if (values.length === 0) throw invalid(`eventTypes must name at least one of ${EVENT_TYPES.join(', ')}`);
  return [...new Set(values as EventType[])];
}
