import { existsSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Command } from 'commander';

interface DevOptions {
  port: string;
  host: string;
  secrets?: string;
  dataDir?: string;
}

const ENTRY_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.mts', '.cjs', '.cts'];

/** `browserfn dev <entry>`: the hosted `bb dev`, backed by the real build and runtime (src/server/dev). */
export function registerDevCommand(program: Command): void {
  program
    .command('dev <entry>')
    .description('Run the project of <entry> locally: rebuild on change, invoke Functions by name on POST /v1/functions/{name}/invoke')
    // The hosted CLI's port, DEFAULT_DEV_PORT of dev-server.ts: not imported, that module loads only when dev runs (see run).
    .option('-p, --port <port>', 'port to listen on (0: any free one)', '14113')
    .option('--host <host>', 'address to bind (a loopback address: the routes take no API key)', '127.0.0.1')
    .option('--secrets <file>', 'secrets handed to the Functions as context.secrets: NAME=value lines, or a JSON object when it ends in .json (default: .env.browserfn in the entry\'s project, read whenever it exists)')
    .option('--data-dir <dir>', 'the dev service\'s store, pods and npm cache (default: a folder of this project under the temp folder)')
    .action((entry: string, opts: DevOptions) => run(entry, opts));
}

async function run(entry: string, opts: DevOptions): Promise<void> {
  const entryPath = resolve(entry);
  if (!existsSync(entryPath) || !statSync(entryPath).isFile()) throw new Error(`Entry file not found: ${entryPath}`);
  if (!ENTRY_EXTENSIONS.includes(extname(entryPath))) throw new Error(`The entry must be one of ${ENTRY_EXTENSIONS.join(', ')}`);
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got "${opts.port}"`);
  if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(opts.host)) throw new Error(`--host must be a loopback address (the dev routes take no API key), got "${opts.host}"`);

  // Loaded here, not at the top: the pod agents share this entry point and must start fast.
  const { createLogger } = await import('../../config/logger.js');
  const { findProjectRoot } = await import('../pack.js');
  const { startDevServer } = await import('../../server/dev/dev-server.js');
  const defaultSecrets = resolve(findProjectRoot(entryPath), '.env.browserfn');
  // The default file is read whenever it exists, so one made while dev runs counts from its next build.
  const secretsFile = opts.secrets ? resolve(opts.secrets) : defaultSecrets;
  if (opts.secrets && !existsSync(secretsFile)) throw new Error(`Secrets file not found: ${secretsFile}`);
  const out = (line: string) => process.stdout.write(line + '\n');
  out(existsSync(secretsFile) ? `Secrets from ${secretsFile}` : `No secrets yet: ${secretsFile} is read once it exists`);
  const server = await startDevServer({
    entry: entryPath,
    port,
    host: opts.host,
    secretsFile,
    secretsFileOptional: !opts.secrets,
    dataDir: opts.dataDir,
    env: process.env,
    // The service's own log stays quiet unless asked for: the terminal shows builds, invocations and console output.
    log: createLogger(process.env.BROWSERFN_LOG_LEVEL ?? 'warn'),
    out,
  });
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    out('Stopping…');
    server.stop().then(
      () => process.exit(0),
      (err: Error) => {
        process.stderr.write(`browserfn dev: stop failed: ${err.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
