import type { Command } from 'commander';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the API, the controllers and a local node agent in one process (embedded store)')
    .option('--port <port>', 'port to listen on (env PORT)', (v) => parsePort(v))
    .option('--host <host>', 'address to bind (env BROWSERFN_HOST)')
    .option('--data-dir <dir>', 'where the store and pod folders live (env BROWSERFN_DATA_DIR)')
    .action(async (opts: { port?: number; host?: string; dataDir?: string }) => {
      // Loaded here, not at the top: the pod agents share this entry point and must start fast.
      const { loadSettings } = await import('../../config/settings.js');
      const { createLogger } = await import('../../config/logger.js');
      const { startStandalone } = await import('../../server/standalone.js');
      const settings = loadSettings({ port: opts.port, host: opts.host, dataDir: opts.dataDir });
      const log = createLogger();
      const service = await startStandalone(settings, log);
      process.stdout.write(`browserfn listening on ${service.url} (data in ${settings.dataDir})\n`);
      if (settings.generatedApiKey) {
        process.stdout.write(`API key (generated once, kept in ${settings.dataDir}/api-key): ${settings.apiKeys[0].key}\n`);
      }
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'shutting down');
        service.stop().then(
          () => process.exit(0),
          (err) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got "${value}"`);
  return port;
}
