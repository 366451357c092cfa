// Runs inside the sandbox during a build: imports the bundle with BB_FUNCTIONS_PHASE=introspect and
// tells the build agent (one record on the channel fd) whether the import succeeded and how often
// each manifest file was written. A file written twice means two defineFn calls shared a name —
// @browserbasehq/sdk-functions silently overwrites the manifest, so counting writes is the only
// way to see it. Both SDKs write manifests with fs.writeFileSync, imported from node:fs.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHANNEL_FD } from '../runtime/sandbox/channel.js';

export interface IntrospectionRecord {
  type: 'introspection';
  ok: boolean;
  /** Manifest file name → number of writes. */
  manifestWrites: Record<string, number>;
  error?: { name: string; message: string; stack?: string; code?: string };
}

const manifestDir = resolve(process.cwd(), '.browserbase', 'functions', 'manifests');
const manifestWrites: Record<string, number> = {};
const writeFileSync = fs.writeFileSync;

fs.writeFileSync = function countingWriteFileSync(this: unknown, file: fs.PathOrFileDescriptor, ...rest: unknown[]) {
  const path = typeof file === 'string' ? resolve(file) : file instanceof URL ? fileURLToPath(file) : Buffer.isBuffer(file) ? resolve(file.toString()) : undefined;
  if (path && dirname(path) === manifestDir && path.endsWith('.json')) {
    const name = basename(path);
    manifestWrites[name] = (manifestWrites[name] ?? 0) + 1;
  }
  return (writeFileSync as (...args: unknown[]) => void).call(this, file, ...rest);
} as typeof fs.writeFileSync;
// Makes `import { writeFileSync } from "node:fs"` in the bundle see the counting version.
syncBuiltinESMExports();

function send(record: IntrospectionRecord): void {
  fs.writeSync(CHANNEL_FD, JSON.stringify(record) + '\n');
}

const bundlePath = process.argv[2];
try {
  await import(pathToFileURL(resolve(bundlePath)).href);
  send({ type: 'introspection', ok: true, manifestWrites });
} catch (thrown) {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const code = (error as { code?: unknown }).code;
  send({
    type: 'introspection',
    ok: false,
    manifestWrites,
    error: { name: error.name, message: error.message, stack: error.stack, code: typeof code === 'string' ? code : undefined },
  });
}
// The bundle may hold the event loop open (timers, sockets); its definitions are all in by now.
process.exit(0);
