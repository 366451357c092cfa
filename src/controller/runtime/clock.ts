// Reconcilers read time only through a Clock, so their decisions can be tested with a fake one.
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const isoAt = (ms: number): string => new Date(ms).toISOString();
