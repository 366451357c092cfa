// Loaded into user processes with `--import`: console.* calls become one JSON line each on the
// channel fd, with level and time of the call, so multi-line messages (stacks) stay whole.
// Without the channel fd (the file run some other way) console is left alone.
import { Console } from 'node:console';
import { fstatSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { CHANNEL_FD, MAX_CHANNEL_MESSAGE_CHARS, type ConsoleRecord } from './channel.js';
import type { LogLevel } from './log-collector.js';

const LEVEL_OF_METHOD: Record<string, LogLevel> = {
  log: 'info',
  info: 'info',
  dir: 'info',
  dirxml: 'info',
  table: 'info',
  group: 'info',
  groupCollapsed: 'info',
  groupEnd: 'info',
  count: 'info',
  countReset: 'info',
  time: 'info',
  timeEnd: 'info',
  timeLog: 'info',
  debug: 'debug',
  trace: 'debug',
  warn: 'warn',
  error: 'error',
  assert: 'error',
};

/** Set once console goes to the channel: formats through it once, sending nothing. */
let formatOnce: (() => void) | undefined;

if (channelIsOpen()) routeConsoleToChannel();

/**
 * Node compiles console's formatting (util.format, util.inspect) at a process's first console call,
 * about 1 ms of CPU; @browserbasehq/sdk-functions logs three lines before it calls the handler and
 * two after. A pool member's code loader calls this while it waits, so that its invocation's first
 * calls find that code compiled. Nothing reaches the channel.
 */
export function warmUpConsole(): void {
  formatOnce?.();
}

function channelIsOpen(): boolean {
  try {
    fstatSync(CHANNEL_FD);
    return true;
  } catch {
    return false;
  }
}

function routeConsoleToChannel(): void {
  let level: LogLevel = 'info';
  let discarding = false;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!discarding) sendRecord({ type: 'console', level, message: chunk.toString('utf8').replace(/\n$/, ''), timestamp: new Date().toISOString() });
      done();
    },
  });
  // A private Console formats exactly like the real one (util.format, groups, tables, counters).
  const formatter = new Console({ stdout: sink, stderr: sink, colorMode: false });
  const target = console as unknown as Record<string, (...args: unknown[]) => void>;
  const source = formatter as unknown as Record<string, (...args: unknown[]) => void>;
  for (const [method, methodLevel] of Object.entries(LEVEL_OF_METHOD)) {
    const format = source[method].bind(formatter);
    target[method] = (...args: unknown[]) => {
      level = methodLevel;
      format(...args);
    };
  }
  formatOnce = () => {
    // The sink is written synchronously: nothing else is sent while it discards.
    discarding = true;
    try {
      formatter.log(`warm-up ${1}:`, { list: [1, 'two'], nested: { at: new Date(0) } });
    } finally {
      discarding = false;
    }
  };
}

function sendRecord(record: ConsoleRecord): void {
  if (record.message.length > MAX_CHANNEL_MESSAGE_CHARS) {
    record.message = `${record.message.slice(0, MAX_CHANNEL_MESSAGE_CHARS)}… [truncated ${record.message.length - MAX_CHANNEL_MESSAGE_CHARS} characters]`;
  }
  writeFully(Buffer.from(JSON.stringify(record) + '\n'));
}

function writeFully(bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(CHANNEL_FD, bytes, offset);
    } catch (error) {
      // The agent reads the channel continuously; a full pipe only needs another try.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}
