// Log entries of a user process or a build, with a cap on the total so a chatty Function cannot
// produce a report the control plane cannot store.
import type { LogEntry, LogLevel } from '../../schemas/reports.js';

export type { LogEntry, LogLevel };

export interface LogLimits {
  /** Sum of message lengths kept (characters). */
  maxTotalChars: number;
  /** One message longer than this is cut with a marker. */
  maxMessageChars: number;
}

/** The line Node prints last on an uncaught error ("Node.js v20.20.2"). */
const NODE_VERSION_LINE = /^Node\.js v\d+\.\d+\.\d+$/;

export const DEFAULT_LOG_LIMITS: LogLimits = { maxTotalChars: 512 * 1024, maxMessageChars: 64 * 1024 };

export class LogCollector {
  readonly #entries: LogEntry[] = [];
  #totalChars = 0;
  #droppedEntries = 0;
  #droppedChars = 0;
  #listener: ((entry: LogEntry) => void) | undefined;

  constructor(readonly limits: LogLimits = DEFAULT_LOG_LIMITS) {}

  /** Told of each entry as it is kept (the cap applies), e.g. to show it live. */
  onEntry(listener: (entry: LogEntry) => void): void {
    this.#listener = listener;
  }

  add(level: LogLevel, message: string, timestamp: string = new Date().toISOString()): void {
    let text = message;
    if (text.length > this.limits.maxMessageChars) {
      text = `${text.slice(0, this.limits.maxMessageChars)}… [truncated ${text.length - this.limits.maxMessageChars} characters]`;
    }
    if (this.#totalChars + text.length > this.limits.maxTotalChars) {
      this.#droppedEntries += 1;
      this.#droppedChars += message.length;
      return;
    }
    this.#totalChars += text.length;
    const entry = { level, message: text, timestamp };
    this.#entries.push(entry);
    this.#listener?.(entry);
  }

  /** Entries in time order, ending with a marker when the cap dropped some. */
  entries(): LogEntry[] {
    const sorted = [...this.#entries].sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
    if (this.#droppedEntries > 0) {
      sorted.push({
        level: 'warn',
        message: `[browserfn] log output truncated: ${this.#droppedEntries} more entries (${this.#droppedChars} characters) over the ${this.limits.maxTotalChars}-character limit were dropped`,
        timestamp: new Date().toISOString(),
      });
    }
    return sorted;
  }

  /**
   * The newest error-level message, to explain a crash: Node's version, which it prints after an
   * uncaught error in a write of its own (so an entry of its own when read apart), is not one.
   */
  lastError(): string | undefined {
    for (let i = this.#entries.length - 1; i >= 0; i -= 1) {
      const { level, message } = this.#entries[i];
      if (level === 'error' && !NODE_VERSION_LINE.test(message)) return message;
    }
    return undefined;
  }
}
