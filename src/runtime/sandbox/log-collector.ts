// Log entries of a user process or a build, the newest kept within what the report stores (a
// crash's error and the lines before it explain more than a chatty start), so a chatty Function
// cannot produce a report the control plane cannot store, and what is kept is what is reported.
import { droppedLogsMarker, OUTCOME_LIMITS, reportedBytes } from '../../schemas/report-limits.js';
import type { LogEntry, LogLevel } from '../../schemas/reports.js';

export type { LogEntry, LogLevel };

export interface LogLimits {
  /** Entries kept, as the report counts them (their JSON), the oldest dropped first. */
  maxTotalBytes: number;
  /** One message longer than this is cut with a marker. */
  maxMessageChars: number;
}

/** The line Node prints last on an uncaught error ("Node.js v20.20.2"). */
const NODE_VERSION_LINE = /^Node\.js v\d+\.\d+\.\d+$/;
/** Left in the report's cap for the marker that says how many entries were dropped. */
const MARKER_ROOM_BYTES = 512;

export const DEFAULT_LOG_LIMITS: LogLimits = { maxTotalBytes: OUTCOME_LIMITS.logsBytes - MARKER_ROOM_BYTES, maxMessageChars: 64 * 1024 };

export class LogCollector {
  /** Kept entries from `#first` on, each with its size; the array is compacted as it drops. */
  #kept: { entry: LogEntry; bytes: number }[] = [];
  #first = 0;
  #totalBytes = 0;
  #dropped = 0;
  #listener: ((entry: LogEntry) => void) | undefined;

  constructor(readonly limits: LogLimits = DEFAULT_LOG_LIMITS) {}

  /** Told of each entry as it comes (shown live; the oldest may be dropped from the report later). */
  onEntry(listener: (entry: LogEntry) => void): void {
    this.#listener = listener;
  }

  add(level: LogLevel, message: string, timestamp: string = new Date().toISOString()): void {
    let text = message;
    if (text.length > this.limits.maxMessageChars) {
      text = `${text.slice(0, this.limits.maxMessageChars)}… [truncated ${text.length - this.limits.maxMessageChars} characters]`;
    }
    const entry = { level, message: text, timestamp };
    const bytes = reportedBytes(entry);
    this.#kept.push({ entry, bytes });
    this.#totalBytes += bytes;
    while (this.#totalBytes > this.limits.maxTotalBytes && this.#first < this.#kept.length) {
      this.#totalBytes -= this.#kept[this.#first].bytes;
      this.#first += 1;
      this.#dropped += 1;
    }
    if (this.#first > 1024 && this.#first * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#first);
      this.#first = 0;
    }
    this.#listener?.(entry);
  }

  /** Entries in time order, the first a marker saying how many earlier ones were dropped, if any were. */
  entries(): LogEntry[] {
    const sorted = this.#kept.slice(this.#first).map(({ entry }) => entry);
    sorted.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
    return this.#dropped > 0 ? [droppedLogsMarker(this.#dropped, OUTCOME_LIMITS.logsBytes, sorted[0]?.timestamp), ...sorted] : sorted;
  }

  /**
   * The newest error-level message, to explain a crash: Node's version, which it prints after an
   * uncaught error in a write of its own (so an entry of its own when read apart), is not one.
   */
  lastError(): string | undefined {
    for (let i = this.#kept.length - 1; i >= this.#first; i -= 1) {
      const { level, message } = this.#kept[i].entry;
      if (level === 'error' && !NODE_VERSION_LINE.test(message)) return message;
    }
    return undefined;
  }
}
