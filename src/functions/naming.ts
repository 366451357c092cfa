// Deterministic names and IDs, so that reconciles are idempotent across retries and restarts.
import { createHash } from 'node:crypto';

const hash = (input: string): string => createHash('sha256').update(input).digest('hex');

/** A DNS-1123 object name for a Function's logical name (which may hold any characters). */
export function functionObjectName(logicalName: string): string {
  const slug = logicalName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'fn';
  return `fn-${slug}-${hash(logicalName).slice(0, 8)}`;
}

/** A UUID derived from its inputs (formatted as a version-5-style UUID). */
export function deterministicUuid(...parts: string[]): string {
  const h = hash(parts.join('\u0000'));
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const nowIso = (): string => new Date().toISOString();
