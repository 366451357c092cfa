// Process-wide settings, read once from flags and BROWSERFN_* environment variables.
// Feature folders (fetch, secrets) read their own BROWSERFN_<FEATURE>_* variables next to their code.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { totalmem } from 'node:os';
import { boolValue, intValue, ipValue, numberValue, oneOfValue } from './env-values.js';
import { defaultChromiumPath } from './chromium-build.js';

export interface ApiKeyBinding {
  key: string;
  /** The project (namespace) the key reaches. */
  project: string;
}

/** Where archived records go (docs/retention.md): files under the data dir, or an S3-compatible bucket. */
export type ArtifactStoreSettings =
  | { kind: 'filesystem'; dir: string }
  | {
      kind: 's3';
      /** The server's URL (e.g. http://minio:9000); unset: AWS S3 of `region`. */
      endpoint?: string;
      region: string;
      bucket: string;
      /** Prepended to every key (empty, or ending in '/'), so installations can share a bucket. */
      keyPrefix: string;
      /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
      forcePathStyle: boolean;
      /** Unset: the AWS SDK's default chain (AWS_* variables, web identity, instance role). */
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

export interface RetentionSettings {
  /** A finished Invocation or Build stays in the cluster store this long, then is archived and deleted. */
  finishedTtlSeconds: number;
  /** An archived record answers this long after its end, then the sweep deletes it. */
  retentionDays: number;
  /** Bundles of a Function's newest versions kept; older ones no Function runs are pruned. */
  keepVersions: number;
  /** How often the archive is swept for records past their retention. */
  sweepIntervalSeconds: number;
}

/** The default warm pool the operator keeps in each namespace with Functions (docs/pools.md). */
export interface WarmPoolSettings {
  /** Idle members of each default pool (BROWSERFN_WARM_POOL_SIZE; 0: no default pools). */
  size: number;
  /** The most idle members demand may call for. */
  maxSize: number;
  /** A default pool without use for this long scales to zero (0: never). */
  idleSeconds: number;
  /** An idle member older than this is replaced. */
  maxAgeSeconds: number;
  /**
   * Members of a default pool whose namespace's Functions all run one artifact import that code
   * before they are claimed, running its top level once per member (BROWSERFN_WARM_POOL_CODE_AHEAD;
   * off: they load the runtime packages only, and the code with the invocation).
   */
  codeAhead: boolean;
  /** Memory all idle members together may reserve on this node (embedded; 0: no cap of ours, Kubernetes schedules by requests). */
  memoryCapBytes: number;
}

/** Memory of each browser pod (docs/pod-memory.md): its limit and its /dev/shm, a tmpfs counted against it. */
export interface PodMemorySettings {
  /** A browser pod's memory limit (BROWSERFN_POD_MEMORY_MB), unless its BrowserPool names one. */
  limitMiB: number;
  /** Size limit of its /dev/shm (BROWSERFN_POD_SHM_MB), at most the memory limit. */
  shmMiB: number;
  /**
   * Size limit of each of its folders on disk, /work and /tmp (BROWSERFN_POD_DISK_MB): a pod that
   * writes more is evicted, as the kubelet does (docs/pod-memory.md).
   */
  diskMiB: number;
}

/**
 * When the embedded store's commits reach the disk (BROWSERFN_STORE_SYNC; docs/store.md).
 * 'normal': a commit is in the write-ahead log, in the OS's cache, when the write returns, and the
 * log is synced at each checkpoint: a write survives the service being killed, while an OS crash or
 * power loss may undo the writes since the last checkpoint (the file stays consistent), as in k3s's
 * single-node store. 'full': every commit is synced before the write returns.
 */
export const STORE_SYNC_MODES = ['normal', 'full'] as const;
export type StoreSync = (typeof STORE_SYNC_MODES)[number];

export interface Settings {
  host: string;
  port: number;
  dataDir: string;
  /** When the embedded store's commits reach the disk (BROWSERFN_STORE_SYNC; docs/store.md). */
  storeSync: StoreSync;
  apiKeys: ApiKeyBinding[];
  /** Whether the single key was generated on this start (so `serve` prints it). */
  generatedApiKey: boolean;
  /** Invocations running at once on this node; more wait as PENDING. */
  maxConcurrentInvocations: number;
  /** Per-project shares of the invocation queue. */
  projectQueue: {
    /** Invocations one project may run at once (0: only maxConcurrentInvocations; auto: one fewer than it once several projects have invocations). */
    maxRunning: number | 'auto';
    /** Invocations one project may have waiting; over it invoke is a 429. */
    maxQueued: number;
  };
  /** Builds running at once. */
  maxConcurrentBuilds: number;
  chromiumPath: string;
  /** npm's cache for dependency installs in build pods (shared between builds). */
  npmCacheDir: string;
  /** The URL pods use to report to the control plane (defaults to the façade's own address). */
  controlUrl?: string;
  /** Take the scheme and host of absolute URLs from X-Forwarded-Proto/-Host (BROWSERFN_TRUST_PROXY): only behind a proxy that sets them. */
  trustProxy: boolean;
  /** Connections one client address may hold open (BROWSERFN_MAX_CONNECTIONS_PER_CLIENT; 0: no limit; behind a proxy, none by default). */
  maxConnectionsPerClient: number;
  /** API requests a second one project may make, ten seconds' worth at once (BROWSERFN_API_RATE_PER_PROJECT; 0: no limit). */
  apiRatePerProject: number;
  /** This API replica's pod address (BROWSERFN_POD_IP, from the downward API), where other replicas reach the live views it holds. */
  podIP?: string;
  /** Pods in sandboxes of their own (bubblewrap + pasta): `auto` when they work here, `bwrap` always (or refuse to start), `off`. */
  sandbox: 'auto' | 'bwrap' | 'off';
  /** A sandboxed pod's network: `pasta` (its own, outbound internet, only the control port of the host's loopback) or `host` (operator opt-in). */
  sandboxNetwork: 'pasta' | 'host';
  /** Processes and threads one sandboxed pod may have when the server runs as root (each pod is then a user of its own). */
  podMaxProcesses: number;
  /** Keep one sandbox ready for the next cold browser pod (BROWSERFN_SANDBOX_AHEAD; docs/runtime.md, "Sandboxes made ahead"). */
  sandboxAhead: boolean;
  /** Largest upload (BROWSERFN_MAX_ARCHIVE_BYTES); it is stored in chunk ConfigMaps (src/functions/stored/artifact-store.ts). */
  maxArchiveBytes: number;
  /** Largest built artifact (BROWSERFN_MAX_ARTIFACT_BYTES): build pods fail BUNDLE_TOO_LARGE above it, the façade refuses to store more. */
  maxArtifactBytes: number;
  /** Every file of one session's recording together (BROWSERFN_RECORDING_MAX_MB; docs/recording.md). */
  recordingMaxBytes: number;
  /** The operator's proxy for browsers whose session asks for it (BROWSERFN_BROWSER_PROXY; docs/runtime.md, "Session proxies"); unset: such invocations are refused. */
  browserProxy?: string;
  /** Budget of the node agent's cache of verified artifacts, by sha256, under the data dir (BROWSERFN_ARTIFACT_CACHE_BYTES; 0: no cache). */
  artifactCacheBytes: number;
  /**
   * Variables each feature parses with its own code when the service starts (src/server): fetch's
   * BROWSERFN_FETCH_*, webhooks' BROWSERFN_WEBHOOK_*, and what build pods are given (their time limits and npm settings).
   */
  featureEnv: { fetch: Record<string, string>; buildPods: Record<string, string>; webhooks: Record<string, string> };
  /** Signs per-pod tokens; BROWSERFN_POD_TOKEN_SECRET (shared by operator and API replicas) or made once in the data dir. */
  podTokenSecret: string;
  /** The bearer token /metrics asks for: BROWSERFN_METRICS_TOKEN, or made once in the data dir (METRICS_TOKEN_FILE). */
  metricsToken: string;
  artifactStore: ArtifactStoreSettings;
  retention: RetentionSettings;
  warmPool: WarmPoolSettings;
  podMemory: PodMemorySettings;
  /** The namespaces (projects) the controllers watch (BROWSERFN_WATCH_NAMESPACES); unset: every namespace. */
  watchNamespaces?: string[];
  /** Timings of the operator replicas' controller lease (BROWSERFN_LEASE_*), as client-go names them. */
  lease: LeaseSettings;
}

export interface LeaseSettings {
  durationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
}

export interface SettingsInput {
  host?: string;
  port?: number;
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_PROJECT = 'default';

const MiB = 1024 * 1024;
export const DEFAULT_MAX_ARCHIVE_BYTES = 50 * MiB;
/** Also the build agent's default, when its pod was not given the variable. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 100 * MiB;
const DEFAULT_ARTIFACT_CACHE_BYTES = 2 * 1024 * MiB;
/** BROWSERFN_RECORDING_MAX_MB's default; also the pod agent's, when its input does not say. */
export const DEFAULT_RECORDING_MAX_BYTES = 100 * MiB;

/** Settings of the build agent (src/build: build-limits.ts, project-npmrc.ts, npm-settings.ts) that build pods get from the operator. */
const BUILD_POD_VARIABLES = [
  'BROWSERFN_BUILD_TIMEOUT_SECONDS',
  'BROWSERFN_NPM_TIMEOUT_SECONDS',
  'BROWSERFN_INTROSPECT_TIMEOUT_SECONDS',
  'BROWSERFN_BUILD_NPMRC_ALLOW',
  'BROWSERFN_NPM_GLOBALCONFIG',
];

function pick(env: NodeJS.ProcessEnv, wanted: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => wanted(entry[0]) && entry[1] !== undefined));
}

export function loadSettings(input: SettingsInput = {}): Settings {
  const env = input.env ?? process.env;
  const dataDir = resolve(input.dataDir ?? env.BROWSERFN_DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  const port = input.port ?? intValue(env.PORT, 'PORT', 3000, 0, 65535);
  const { apiKeys, generated } = resolveApiKeys(env, dataDir);
  const maxArtifactBytes = intValue(env.BROWSERFN_MAX_ARTIFACT_BYTES, 'BROWSERFN_MAX_ARTIFACT_BYTES', DEFAULT_MAX_ARTIFACT_BYTES, 1024, 4096 * MiB);

  return {
    host: input.host ?? env.BROWSERFN_HOST ?? '127.0.0.1',
    storeSync: oneOfValue(env.BROWSERFN_STORE_SYNC, 'BROWSERFN_STORE_SYNC', STORE_SYNC_MODES, 'normal'),
    port,
    dataDir,
    apiKeys,
    generatedApiKey: generated,
    maxConcurrentInvocations: intValue(env.BROWSERFN_MAX_CONCURRENT_INVOCATIONS, 'BROWSERFN_MAX_CONCURRENT_INVOCATIONS', 4, 1, 1000),
    projectQueue: {
      maxRunning: maxRunningPerProject(env.BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT),
      maxQueued: intValue(env.BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT, 'BROWSERFN_MAX_QUEUED_INVOCATIONS_PER_PROJECT', 1000, 1, 1_000_000),
    },
    maxConcurrentBuilds: intValue(env.BROWSERFN_MAX_CONCURRENT_BUILDS, 'BROWSERFN_MAX_CONCURRENT_BUILDS', 2, 1, 100),
    chromiumPath: env.BROWSERFN_CHROMIUM_PATH || defaultChromiumPath(),
    npmCacheDir: resolve(env.BROWSERFN_NPM_CACHE ?? join(dataDir, 'npm-cache')),
    controlUrl: env.BROWSERFN_CONTROL_URL,
    podIP: ipValue(env.BROWSERFN_POD_IP, 'BROWSERFN_POD_IP'),
    trustProxy: boolValue(env.BROWSERFN_TRUST_PROXY, 'BROWSERFN_TRUST_PROXY'),
    apiRatePerProject: intValue(env.BROWSERFN_API_RATE_PER_PROJECT, 'BROWSERFN_API_RATE_PER_PROJECT', 100, 0, 1_000_000),
    maxConnectionsPerClient: intValue(env.BROWSERFN_MAX_CONNECTIONS_PER_CLIENT, 'BROWSERFN_MAX_CONNECTIONS_PER_CLIENT', boolValue(env.BROWSERFN_TRUST_PROXY, 'BROWSERFN_TRUST_PROXY') ? 0 : 512, 0, 1_000_000),
    sandbox: oneOfValue(env.BROWSERFN_SANDBOX, 'BROWSERFN_SANDBOX', ['auto', 'bwrap', 'off'] as const, 'auto'),
    sandboxNetwork: oneOfValue(env.BROWSERFN_SANDBOX_NETWORK, 'BROWSERFN_SANDBOX_NETWORK', ['pasta', 'host'] as const, 'pasta'),
    podMaxProcesses: intValue(env.BROWSERFN_POD_MAX_PROCESSES, 'BROWSERFN_POD_MAX_PROCESSES', 4096, 64, 1_000_000),
    sandboxAhead: boolValue(env.BROWSERFN_SANDBOX_AHEAD, 'BROWSERFN_SANDBOX_AHEAD', true),
    maxArchiveBytes: intValue(env.BROWSERFN_MAX_ARCHIVE_BYTES, 'BROWSERFN_MAX_ARCHIVE_BYTES', DEFAULT_MAX_ARCHIVE_BYTES, 1024, 1024 * MiB),
    maxArtifactBytes,
    browserProxy: browserProxyFrom(env.BROWSERFN_BROWSER_PROXY),
    recordingMaxBytes: Math.round(numberValue(env.BROWSERFN_RECORDING_MAX_MB, 'BROWSERFN_RECORDING_MAX_MB', DEFAULT_RECORDING_MAX_BYTES / MiB, 0.01, 64 * 1024) * MiB),
    artifactCacheBytes: intValue(env.BROWSERFN_ARTIFACT_CACHE_BYTES, 'BROWSERFN_ARTIFACT_CACHE_BYTES', DEFAULT_ARTIFACT_CACHE_BYTES, 0, Number.MAX_SAFE_INTEGER),
    featureEnv: {
      fetch: pick(env, (name) => name.startsWith('BROWSERFN_FETCH_')),
      webhooks: pick(env, (name) => name.startsWith('BROWSERFN_WEBHOOK_')),
      // Build pods check the artifact against the limit the façade enforces when storing it.
      buildPods: { ...pick(env, (name) => BUILD_POD_VARIABLES.includes(name)), BROWSERFN_MAX_ARTIFACT_BYTES: String(maxArtifactBytes) },
    },
    podTokenSecret: env.BROWSERFN_POD_TOKEN_SECRET || readOrCreateSecret(join(dataDir, 'pod-token.secret')),
    metricsToken: metricsTokenFrom(env.BROWSERFN_METRICS_TOKEN) ?? readOrCreateSecret(join(dataDir, METRICS_TOKEN_FILE)),
    watchNamespaces: namespaceList(env.BROWSERFN_WATCH_NAMESPACES),
    artifactStore: artifactStoreFrom(env, dataDir),
    retention: {
      finishedTtlSeconds: intValue(env.BROWSERFN_FINISHED_TTL_SECONDS, 'BROWSERFN_FINISHED_TTL_SECONDS', 3600, 0, 10 * 365 * 86400),
      retentionDays: numberValue(env.BROWSERFN_RETENTION_DAYS, 'BROWSERFN_RETENTION_DAYS', 30, 0.00001, 36500),
      keepVersions: intValue(env.BROWSERFN_KEEP_VERSIONS, 'BROWSERFN_KEEP_VERSIONS', 10, 1, 100_000),
      sweepIntervalSeconds: intValue(env.BROWSERFN_RETENTION_SWEEP_SECONDS, 'BROWSERFN_RETENTION_SWEEP_SECONDS', 3600, 1, 7 * 86400),
    },
    warmPool: warmPoolFrom(env),
    podMemory: podMemoryFrom(env),
    lease: leaseFrom(env),
  };
}

function leaseFrom(env: NodeJS.ProcessEnv): LeaseSettings {
  const durationSeconds = intValue(env.BROWSERFN_LEASE_DURATION_SECONDS, 'BROWSERFN_LEASE_DURATION_SECONDS', 15, 2, 3600);
  const renewDeadlineSeconds = intValue(env.BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS, 'BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS', 10, 1, 3600);
  const retryPeriodSeconds = intValue(env.BROWSERFN_LEASE_RETRY_PERIOD_SECONDS, 'BROWSERFN_LEASE_RETRY_PERIOD_SECONDS', 2, 1, 3600);
  // The leader must stop before its lease can expire for the others, and get to retry before it stops.
  if (renewDeadlineSeconds >= durationSeconds) {
    throw new Error(`BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS (${renewDeadlineSeconds}) must be below BROWSERFN_LEASE_DURATION_SECONDS (${durationSeconds})`);
  }
  if (retryPeriodSeconds >= renewDeadlineSeconds) {
    throw new Error(`BROWSERFN_LEASE_RETRY_PERIOD_SECONDS (${retryPeriodSeconds}) must be below BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS (${renewDeadlineSeconds})`);
  }
  return { durationSeconds, renewDeadlineSeconds, retryPeriodSeconds };
}

/** The protocols the pods' session proxy can send on to (as for a session's own proxies, src/schemas/session-proxies.ts). */
const BROWSER_PROXY_PROTOCOLS = ['http:', 'https:', 'socks4:', 'socks5:'];

/** Never echoes the value: it holds the proxy's credentials. */
function browserProxyFrom(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined;
  const problem = 'BROWSERFN_BROWSER_PROXY must be a proxy URL such as http://user:pass@proxy:3128 (http, https, socks4 or socks5)';
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`${problem}; it is not a URL`);
  }
  if (!BROWSER_PROXY_PROTOCOLS.includes(url.protocol) || !url.hostname) throw new Error(`${problem}; it is ${url.protocol}//${url.hostname}`);
  return url.href.replace(/\/$/, '');
}

function podMemoryFrom(env: NodeJS.ProcessEnv): PodMemorySettings {
  const limitMiB = intValue(env.BROWSERFN_POD_MEMORY_MB, 'BROWSERFN_POD_MEMORY_MB', 2048, 64, 1024 * 1024);
  const shmMiB = intValue(env.BROWSERFN_POD_SHM_MB, 'BROWSERFN_POD_SHM_MB', Math.min(512, limitMiB), 1, 1024 * 1024);
  if (shmMiB > limitMiB) throw new Error(`BROWSERFN_POD_SHM_MB (${shmMiB}) must not exceed BROWSERFN_POD_MEMORY_MB (${limitMiB}): /dev/shm counts against the pod's memory`);
  const diskMiB = intValue(env.BROWSERFN_POD_DISK_MB, 'BROWSERFN_POD_DISK_MB', 2048, 16, 1024 * 1024);
  return { limitMiB, shmMiB, diskMiB };
}

function warmPoolFrom(env: NodeJS.ProcessEnv): WarmPoolSettings {
  const size = intValue(env.BROWSERFN_WARM_POOL_SIZE, 'BROWSERFN_WARM_POOL_SIZE', 2, 0, 100);
  const maxSize = intValue(env.BROWSERFN_WARM_POOL_MAX, 'BROWSERFN_WARM_POOL_MAX', Math.max(8, size), 0, 100);
  if (maxSize < size) throw new Error(`BROWSERFN_WARM_POOL_MAX (${maxSize}) must be at least BROWSERFN_WARM_POOL_SIZE (${size})`);
  return {
    size,
    maxSize,
    idleSeconds: intValue(env.BROWSERFN_WARM_POOL_IDLE_SECONDS, 'BROWSERFN_WARM_POOL_IDLE_SECONDS', 600, 0, 7 * 86400),
    maxAgeSeconds: intValue(env.BROWSERFN_WARM_POOL_MAX_AGE_SECONDS, 'BROWSERFN_WARM_POOL_MAX_AGE_SECONDS', 1800, 60, 7 * 86400),
    codeAhead: boolValue(env.BROWSERFN_WARM_POOL_CODE_AHEAD, 'BROWSERFN_WARM_POOL_CODE_AHEAD', true),
    // A quarter of the machine's memory by default: idle browsers must not crowd out the ones at work.
    memoryCapBytes: intValue(env.BROWSERFN_WARM_POOL_MEMORY_MB, 'BROWSERFN_WARM_POOL_MEMORY_MB', Math.floor(totalmem() / 4 / MiB), 0, 1024 * 1024) * MiB,
  };
}

/**
 * Keys come from BROWSERFN_API_KEYS ("key:project,key2:project2"), else BROWSERFN_API_KEY
 * (project "default"), else a key generated once and kept in the data dir.
 */
function resolveApiKeys(env: NodeJS.ProcessEnv, dataDir: string): { apiKeys: ApiKeyBinding[]; generated: boolean } {
  if (env.BROWSERFN_API_KEYS) {
    const apiKeys = env.BROWSERFN_API_KEYS.split(',').map((pair) => {
      const at = pair.lastIndexOf(':');
      const key = pair.slice(0, at).trim();
      const project = pair.slice(at + 1).trim();
      if (at <= 0 || !key || !isProjectName(project)) {
        throw new Error(`BROWSERFN_API_KEYS: "${pair.slice(0, 4)}…" must be "key:project" with a DNS-label project name`);
      }
      return { key, project };
    });
    return { apiKeys, generated: false };
  }
  if (env.BROWSERFN_API_KEY) return { apiKeys: [{ key: env.BROWSERFN_API_KEY, project: DEFAULT_PROJECT }], generated: false };
  const keyFile = join(dataDir, 'api-key');
  const existed = existsSync(keyFile);
  const key = readOrCreateSecret(keyFile, 'bfn_');
  return { apiKeys: [{ key, project: DEFAULT_PROJECT }], generated: !existed };
}

/** In the data dir: the metrics token made on first start when BROWSERFN_METRICS_TOKEN is not set. */
export const METRICS_TOKEN_FILE = 'metrics.token';
const MIN_METRICS_TOKEN_LENGTH = 16;

/** Never echoes the value. */
function metricsTokenFrom(raw: string | undefined): string | undefined {
  const token = raw?.trim();
  if (!token) return undefined;
  if (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(`BROWSERFN_METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces (it is ${token.length} long); e.g. openssl rand -hex 24`);
  }
  return token;
}

function readOrCreateSecret(path: string, prefix = ''): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = prefix + randomBytes(24).toString('base64url');
  writeFileSync(path, value + '\n', { mode: 0o600 });
  return value;
}

function namespaceList(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const names = [...new Set(raw.split(',').map((name) => name.trim()))];
  const bad = names.find((name) => !isProjectName(name));
  if (bad !== undefined) throw new Error(`BROWSERFN_WATCH_NAMESPACES must be namespace names separated by commas, got "${bad.slice(0, 64)}"`);
  return names;
}

export function isProjectName(name: string): boolean {
  return /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name);
}

function artifactStoreFrom(env: NodeJS.ProcessEnv, dataDir: string): ArtifactStoreSettings {
  const kind = oneOfValue(env.BROWSERFN_ARTIFACT_STORE, 'BROWSERFN_ARTIFACT_STORE', ['filesystem', 's3'] as const, 'filesystem');
  if (kind === 'filesystem') return { kind, dir: resolve(env.BROWSERFN_ARTIFACT_DIR || join(dataDir, 'artifacts')) };
  const bucket = env.BROWSERFN_S3_BUCKET ?? '';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`BROWSERFN_S3_BUCKET must name the bucket (3-63 lower-case letters, digits, '.', '-') when BROWSERFN_ARTIFACT_STORE=s3, got "${bucket}"`);
  }
  const keyPrefix = env.BROWSERFN_S3_KEY_PREFIX ?? '';
  if (keyPrefix && !/^([a-zA-Z0-9._-]+\/)+$/.test(keyPrefix)) throw new Error(`BROWSERFN_S3_KEY_PREFIX must be empty or folders ending in '/' (e.g. "browserfn/"), got "${keyPrefix}"`);
  const accessKeyId = env.BROWSERFN_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.BROWSERFN_S3_SECRET_ACCESS_KEY;
  if (!accessKeyId !== !secretAccessKey) throw new Error('Set both BROWSERFN_S3_ACCESS_KEY_ID and BROWSERFN_S3_SECRET_ACCESS_KEY, or neither (then the AWS SDK finds credentials itself)');
  const endpoint = env.BROWSERFN_S3_ENDPOINT || undefined;
  return {
    kind,
    endpoint,
    region: env.BROWSERFN_S3_REGION || 'us-east-1',
    bucket,
    keyPrefix,
    forcePathStyle: oneOfValue(env.BROWSERFN_S3_FORCE_PATH_STYLE, 'BROWSERFN_S3_FORCE_PATH_STYLE', ['true', 'false'] as const, endpoint ? 'true' : 'false') === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/** BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT: a number (0: no limit of its own), or auto (the default). */
function maxRunningPerProject(raw: string | undefined): number | 'auto' {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'auto') return 'auto';
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 1000) throw new Error(`BROWSERFN_MAX_RUNNING_INVOCATIONS_PER_PROJECT must be auto or an integer from 0 to 1000, got "${raw}"`);
  return value;
}
