// The user process of a browser pod starts before its code is there: this script loads the
// packages the runtime provides, then imports the bundle whose path the agent writes to stdin.
// So the Node start and the runtime packages' load overlap the artifact's download (cold pods)
// or are done before the invocation arrives (warm pool members).
// Usage: node code-loader.js <code dir>
import { readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { CHANNEL_FD, LOADER_READY_RECORD } from './channel.js';

/** What bundles keep external and the runtime provides (see runtime-modules.ts). */
const RUNTIME_PACKAGES = ['playwright-core', 'puppeteer-core', 'chrome-remote-interface'];

const codeDir = process.argv[2];
if (!codeDir) throw new Error('code-loader: the code directory is required');

// Resolved as the bundle will resolve them (from its own directory), so the module cache serves its imports.
const resolveFromCode = createRequire(join(codeDir, 'index.js'));
await Promise.all([...RUNTIME_PACKAGES.map((name) => preload(name)), warmFetch()]);
try {
  writeSync(CHANNEL_FD, `${JSON.stringify({ type: LOADER_READY_RECORD })}\n`);
} catch {
  // started without the agent's channel
}

const lines = createInterface({ input: process.stdin });
const bundlePath = await new Promise<string | undefined>((resolve) => {
  lines.once('line', (line) => resolve(line.trim()));
  lines.once('close', () => resolve(undefined));
});
lines.close();
process.stdin.destroy();
// stdin closed without a path: the invocation ended before its code was there.
if (bundlePath) await import(pathToFileURL(bundlePath).href);

async function preload(name: string): Promise<void> {
  try {
    await import(pathToFileURL(esmEntry(name) ?? resolveFromCode.resolve(name)).href);
  } catch {
    // Not provided here, or not loadable on its own: the bundle's import reports it if it needs it.
  }
}

/**
 * Node loads fetch's HTTP client and compiles its parser on the first request (about 70 ms): done
 * here, the handler's first `next` to the runtime API does not wait for it. The answer (a 404) is
 * not read for anything.
 */
async function warmFetch(): Promise<void> {
  const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
  if (!runtimeApi) return;
  try {
    await (await fetch(`http://${runtimeApi}/`, { method: 'HEAD' })).arrayBuffer();
  } catch {
    // The runtime API is the agent's: if it does not answer, the SDK's own request says so.
  }
}

/** The file an ESM `import` of the package loads, when its exports name one apart from require's. */
function esmEntry(name: string): string | undefined {
  const manifestPath = resolveFromCode.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: unknown };
  const root = typeof manifest.exports === 'object' && manifest.exports !== null ? (manifest.exports as Record<string, unknown>)['.'] : undefined;
  const target = pickImport(root);
  return target ? join(dirname(manifestPath), target) : undefined;
}

function pickImport(condition: unknown): string | undefined {
  if (typeof condition === 'string') return condition;
  if (typeof condition !== 'object' || condition === null) return undefined;
  const map = condition as Record<string, unknown>;
  return pickImport(map.import) ?? pickImport(map.node) ?? pickImport(map.default);
}
