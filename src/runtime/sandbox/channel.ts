// The extra pipe (fd 3) between a sandboxed process and its agent: JSON lines, one record each.
import type { LogLevel } from './log-collector.js';

export const CHANNEL_FD = 3;
export const MAX_CHANNEL_MESSAGE_CHARS = 64 * 1024;

export interface ConsoleRecord {
  type: 'console';
  level: LogLevel;
  message: string;
  timestamp: string;
}

/** Any other record type is for the agent that started the process (e.g. the introspection result). */
export interface ChannelRecord {
  type: string;
  [field: string]: unknown;
}

/** The code loader's record once the runtime packages are loaded and it waits for its bundle. */
export const LOADER_READY_RECORD = 'code-loader-ready';

/**
 * What the agent tells the code loader on its stdin, one JSON line each: the browser's DevTools
 * WebSocket URL once it runs, and the bundle's path once it is unpacked, in either order. A pool
 * member that loads its code ahead is given the bundle `ahead` (before it is claimed), and told
 * once it is `claimed`.
 */
export type LoaderInstruction = { browser: string } | { bundle: string; ahead?: true } | { claimed: true };
