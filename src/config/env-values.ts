// Reading one setting's raw environment value: unset or empty takes the default; anything else must
// be valid, or start-up fails naming the variable, what it must be and what it was.
import { isIP } from 'node:net';

export function intValue(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function numberValue(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** 1/true/yes or 0/false/no (any case); unset or empty is `fallback`. */
export function boolValue(raw: string | undefined, name: string, fallback = false): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return fallback;
  if (value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new Error(`${name} must be 1 or 0, got "${raw}"`);
}

export function oneOfValue<T extends string>(raw: string | undefined, name: string, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** An IPv4 or IPv6 address; unset or empty is undefined. */
export function ipValue(raw: string | undefined, name: string): string | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  if (!isIP(value)) throw new Error(`${name} must be an IP address, got "${raw}"`);
  return value;
}
