// Strict RFC 3339 `date-time` parsing (section 5.6), exact below the millisecond.
// Creation times are whole milliseconds, so a bound with a finer fraction still compares exactly:
// "created on or after 12:00:00.0004" means "on or after 12:00:00.001".

export interface Instant {
  /** Milliseconds since the epoch, rounded down. */
  ms: number;
  /** Digits of the seconds fraction beyond the millisecond, trailing zeros removed ('' when none). */
  subMs: string;
}

// full-date "T" full-time; "T" and "Z" may be lower case (RFC 3339 5.6, NOTE).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** The instant, or undefined when `text` is not an RFC 3339 date-time with a time zone. */
export function parseRfc3339(text: string): Instant | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  const offsetHours = m[10] === undefined ? 0 : Number(m[10]);
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  // Second 60 is a leap second; like most clocks we count it as the next second's start.
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const sign = m[9] === '-' ? -1 : 1;
  const ms = date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return { ms, subMs: fraction.slice(3).replace(/0+$/, '') };
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.ms !== b.ms) return a.ms - b.ms;
  const width = Math.max(a.subMs.length, b.subMs.length);
  const fa = a.subMs.padEnd(width, '0');
  const fb = b.subMs.padEnd(width, '0');
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

/** The first whole millisecond at or after the instant (an inclusive lower bound). */
export const ceilMs = (t: Instant): number => (t.subMs ? t.ms + 1 : t.ms);

/** The last whole millisecond at or before the instant (an inclusive upper bound). */
export const floorMs = (t: Instant): number => t.ms;
