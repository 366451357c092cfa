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
  if (streams.stdout) captures.push(captureText(streams.stdout, addText(options.stdoutLevel ?? 'info')));
  if (streams.stderr) captures.push(captureText(streams.stderr, addText(options.stderrLevel ?? 'error')));
  if (streams.channel) {
    captures.push(
      captureLines(streams.channel, (line) => {
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

/** Complete lines that arrived together become one entry; a partial last line waits for the rest. */
function captureText(stream: Readable, emit: (text: string) => void): Capture {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const text = pending + chunk;
    const lastNewline = text.lastIndexOf('\n');
    if (lastNewline < 0) {
      pending = text;
      return;
    }
    pending = text.slice(lastNewline + 1);
    emit(text.slice(0, lastNewline));
  });
  return heldBack(stream, emit, () => pending, () => (pending = ''));
}

function captureLines(stream: Readable, emit: (line: string) => void): Capture {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line) emit(line);
  });
  return heldBack(stream, emit, () => pending, () => (pending = ''));
}

/** The partial line a capture holds is emitted at the stream's end, or sooner when flushed. */
function heldBack(stream: Readable, emit: (text: string) => void, pending: () => string, clear: () => void): Capture {
  const flush = () => {
    const text = pending();
    clear();
    if (text) emit(text);
  };
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
