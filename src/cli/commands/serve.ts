import type { Command } from 'commander';

interface ServeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  backend: 'embedded' | 'kube';
  kubeconfig?: string;
  nodeName: string;
}

/** `serve` (everything), `operator` (controllers) and `api` (façade): one composition, three presets. */
export function registerServeCommand(program: Command): void {
  withCommon(program.command('serve'))
    .description('Run the API, the controllers and a local node agent in one process')
    .option('--backend <backend>', 'embedded (SQLite in the data dir) or kube (a real API server)', parseBackend, 'embedded')
    .option('--node-name <name>', 'the node the local agent runs pods for', 'local')
    .action((opts: ServeOptions) => run(opts, { api: true, controllers: true, nodeAgent: true }));

  withCommon(program.command('operator'))
    .description('Run the controllers against a Kubernetes API server (one active replica, elected through a Lease)')
    .action((opts: ServeOptions) => run({ ...opts, backend: 'kube' }, { api: false, controllers: true, nodeAgent: false, lease: true }));

  withCommon(program.command('api'))
    .description('Run the HTTP façade against a Kubernetes API server')
    .action((opts: ServeOptions) => run({ ...opts, backend: 'kube' }, { api: true, controllers: false, nodeAgent: false }));

  withCommon(program.command('node-agent'))
    .description('Run pods bound to --node-name as local processes (a kubelet without containers)')
    .option('--node-name <name>', 'the node to register and run pods for', 'local')
    .action((opts: ServeOptions) => run({ ...opts, backend: 'kube' }, { api: false, controllers: false, nodeAgent: true }));
}

function withCommon(command: Command): Command {
  return command
    .option('--port <port>', 'port to listen on (env PORT)', parsePort)
    .option('--host <host>', 'address to bind (env BROWSERFN_HOST)')
    .option('--data-dir <dir>', 'store, keys and pod folders (env BROWSERFN_DATA_DIR)')
    .option('--kubeconfig <path>', 'kube backend: the kubeconfig to use (default: KUBECONFIG, ~/.kube/config, or in-cluster)');
}

async function run(opts: ServeOptions, parts: { api: boolean; controllers: boolean; nodeAgent: boolean; lease?: boolean }): Promise<void> {
  // Loaded here, not at the top: the pod agents share this entry point and must start fast.
  const { loadSettings, METRICS_TOKEN_FILE } = await import('../../config/settings.js');
  const { createLogger } = await import('../../config/logger.js');
  const { startService } = await import('../../server/service.js');
  const settings = loadSettings({ port: opts.port, host: opts.host, dataDir: opts.dataDir });
  const log = createLogger();
  const service = await startService(
    settings,
    {
      backend: opts.backend,
      kubeconfigPath: opts.kubeconfig,
      ...parts,
      nodeName: opts.nodeName ?? 'local',
      podNodeName: process.env.BROWSERFN_POD_NODE_NAME || undefined,
      leaseNamespace: parts.lease ? (process.env.BROWSERFN_NAMESPACE ?? 'browserfn-system') : undefined,
      image: process.env.BROWSERFN_POD_IMAGE ?? 'ghcr.io/browserfn/browserfn:latest',
    },
    log,
  );
  process.stdout.write(`browserfn listening on ${service.url} (${opts.backend} backend${opts.backend === 'embedded' ? `, data in ${settings.dataDir}` : ''})\n`);
  if (parts.api) process.stdout.write(`web console: ${service.url}/ui/\n`);
  if (service.podIsolation) process.stdout.write(`${service.podIsolation}\n`);
  if (parts.api && settings.generatedApiKey) {
    process.stdout.write(`API key (generated once, kept in ${settings.dataDir}/api-key): ${settings.apiKeys[0].key}\n`);
  }
  if (!process.env.BROWSERFN_METRICS_TOKEN) process.stdout.write(`Prometheus metrics: ${service.url}/metrics with "Authorization: Bearer <the token in ${settings.dataDir}/${METRICS_TOKEN_FILE}>"\n`);
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
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got "${value}"`);
  return port;
}

function parseBackend(value: string): 'embedded' | 'kube' {
  if (value !== 'embedded' && value !== 'kube') throw new Error(`--backend must be "embedded" or "kube", got "${value}"`);
  return value;
}
