// The test S3 server (versitygw, scripts/s3): reuses the one .cache/versitygw/run/s3.env points
// at when it answers, otherwise builds (when needed) and starts it with scripts/s3/start.sh; if
// this process started it, it is stopped when the process exits.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './controlplane.js';

const CACHE = process.env.BROWSERFN_S3_DIR ?? join(repoRoot(), '.cache', 'versitygw');
const ENV_FILE = join(CACHE, 'run', 's3.env');
/** start.sh's exit code when Go is not installed and no binary was built before. */
const EXIT_GO_MISSING = 3;

export type S3Server =
  | { state: 'ready'; endpoint: string; accessKeyId: string; secretAccessKey: string }
  | { state: 'no-go' | 'failed'; reason: string };

function readEnvFile(): { endpoint: string; accessKeyId: string; secretAccessKey: string } | undefined {
  if (!existsSync(ENV_FILE)) return undefined;
  const vars = Object.fromEntries(
    readFileSync(ENV_FILE, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const endpoint = vars.BROWSERFN_TEST_S3_ENDPOINT;
  const accessKeyId = vars.BROWSERFN_TEST_S3_ACCESS_KEY_ID;
  const secretAccessKey = vars.BROWSERFN_TEST_S3_SECRET_ACCESS_KEY;
  return endpoint && accessKeyId && secretAccessKey ? { endpoint, accessKeyId, secretAccessKey } : undefined;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint + '/', { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

let current: Promise<S3Server> | undefined;

/** The S3 server for this process: the same answer to every caller. */
export function ensureS3Server(): Promise<S3Server> {
  current ??= (async (): Promise<S3Server> => {
    const running = readEnvFile();
    if (running && (await answers(running.endpoint))) return { state: 'ready', ...running };
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
      const child = spawn('bash', [join(repoRoot(), 'scripts', 's3', 'start.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      const keep = (chunk: Buffer) => {
        text += chunk.toString();
        process.stderr.write(chunk);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      child.once('error', reject);
      child.once('close', (exit) => resolve({ code: exit ?? 1, output: text }));
    });
    if (code === EXIT_GO_MISSING) return { state: 'no-go', reason: 'Go is not installed (no `go` on PATH, no /usr/local/go/bin/go), so the test S3 server (versitygw) cannot be built' };
    const started = readEnvFile();
    if (code !== 0 || !started) return { state: 'failed', reason: `scripts/s3/start.sh exited with ${code}:\n${output.slice(-2000)}` };
    process.once('exit', () => spawnSync('bash', [join(repoRoot(), 'scripts', 's3', 'stop.sh')], { stdio: 'ignore' }));
    return { state: 'ready', ...started };
  })();
  return current;
}
