// Turns a sandboxed process's output into log entries: console records from the channel fd, and
// whatever else reaches stdout (info by default) or stderr (error by default) — lines of one
// write stay one entry.
import type { Readable } from 'node:stream';
import type { ChannelRecord, ConsoleRecord } from './channel.js';
import type { LogCollector, LogLevel } from './log-collector.js';

export interface CapturedStreams {
  stdout: Readable | null;
  stderr: Readable | null;
  channel: Readable | null;
}

export interface CapturedOutput {
  /** Resolves when all streams have ended (the process and its children closed them). */
  ended: Promise<void>;
  /** Adds the partial lines held back for their rest now, as the streams' end would. */
  flush(): void;
}

export interface CaptureOptions {
  onRecord?: (record: ChannelRecord) => void;
  stdoutLevel?: LogLevel;
  stderrLevel?: LogLevel;
}

export function captureProcessOutput(streams: CapturedStreams, logs: LogCollector, options: CaptureOptions = {}): CapturedOutput {
  const onRecord = options.onRecord ?? (() => undefined);
  const captures: Capture[] = [];
  const addText = (level: LogLevel) => (text: string) => {
    const trimmed = text.replace(/^(\s*\n)+/, '').trimEnd();
    if (trimmed) logs.add(level, trimmed);
  };
  if (streams.stdout) captures.push(capture(streams.stdout, wholeWrites, addText(options.stdoutLevel ?? 'info')));
  if (streams.stderr) captures.push(capture(streams.stderr, wholeWrites, addText(options.stderrLevel ?? 'error')));
  if (streams.channel) {
    captures.push(
      capture(streams.channel, eachLine, (line) => {
        const record = parseRecord(line);
        if (!record) logs.add('info', line);
        else if (isConsoleRecord(record)) logs.add(record.level, record.message, record.timestamp);
        else onRecord(record);
      }),
    );
  }
  return {
    ended: Promise.all(captures.map((capture) => capture.ended)).then(() => undefined),
    flush: () => captures.forEach((capture) => capture.flush()),
  };
}

interface Capture {
  ended: Promise<void>;
  flush(): void;
}

/** What arrived, split into the entries it completes and the partial line held back for its rest. */
type Split = (text: string) => { complete: string[]; rest: string };

/** Complete lines that arrived together become one entry. */
const wholeWrites: Split = (text) => {
  const lastNewline = text.lastIndexOf('\n');
  return lastNewline < 0 ? { complete: [], rest: text } : { complete: [text.slice(0, lastNewline)], rest: text.slice(lastNewline + 1) };
};

/** Each non-empty line is an entry. */
const eachLine: Split = (text) => {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  return { complete: lines.filter((line) => line !== ''), rest };
};

/** The partial line held back is emitted at the stream's end, or sooner when flushed. */
function capture(stream: Readable, split: Split, emit: (text: string) => void): Capture {
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text) emit(text);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const { complete, rest } = split(pending + chunk);
    pending = rest;
    for (const entry of complete) emit(entry);
  });
  return { ended: ended(stream).then(flush), flush };
}

function ended(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}

function parseRecord(line: string): ChannelRecord | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string') return value as ChannelRecord;
  } catch {
    // not a record: kept as plain text
  }
  return undefined;
}

const LEVELS = new Set<LogLevel>(['info', 'warn', 'error', 'debug']);

function isConsoleRecord(record: ChannelRecord): record is ConsoleRecord & ChannelRecord {
  return (
    record.type === 'console' &&
    typeof record.message === 'string' &&
    typeof record.timestamp === 'string' &&
    LEVELS.has(record.level as LogLevel)
  );
}
