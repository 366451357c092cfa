// The user process of a browser pod starts before its code is there: this script starts Node, then
// imports the bundle whose path the agent writes to stdin. So the Node start overlaps the
// artifact's download (cold pods). A warm pool member also loads the runtime packages it is told to
// before the invocation arrives; the runtime packages the bundle imports besides are loaded once
// its path is known (all of them, in a cold pod). Once told where the browser is, a
// loader whose bundle uses chrome-remote-interface fetches the browser's protocol description for it,
// and a pool member warms up before it says it is ready, unless it was claimed first: its console's
// formatting (console-preload.ts), its HTTP clients, and the browser clients it preloads: a few
// connects of chrome-remote-interface's (devtools-protocol-cache.ts), a page of Playwright's and
// Puppeteer's (page-driver-warm-up.ts).
// A member whose pool loads its code ahead is given its bundle before it is claimed, and imports it
// meanwhile. Then the connection the handler's first chrome-remote-interface connect will ask for is
// made (devtools-standby-connection.ts): a member makes it before it says it is ready, a cold pod
// while its bundle loads.
// Usage: node code-loader.js <code dir> <runtime packages, comma separated> [<packages to load ahead>]
// (the lists come from the agent: this script may read only itself and its support modules).
import { existsSync, readFileSync, statSync, writeSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { CHANNEL_FD, LOADER_READY_RECORD, type LoaderInstruction } from './channel.js';
import { serveDevtoolsProtocolFromCache, warmUpDevtoolsClient } from './devtools-protocol-cache.js';
import { installDevtoolsStandby, type DevtoolsStandby } from './devtools-standby-connection.js';
import { isPageDriver, warmUpPageDrivers } from './page-driver-warm-up.js';
import { warmUpConsole } from './console-preload.js';

/**
 * The largest bundle a pool member compiles whole as it imports it ahead (V8's --no-lazy, for the
 * import only). Each process serves one invocation, so every function of the handler's path and
 * the SDK's would otherwise be compiled inside it, about 2 ms of a trivial warm invocation. The
 * member pays before it is ready, about three times the bytecode of what it would compile lazily;
 * larger bundles compile as they run rather than cost each member tens of MB.
 */
const EAGER_BUNDLE_MAX_BYTES = 4 * 1024 * 1024;

const [codeDir, runtimePackagesArg, preloadArg] = process.argv.slice(2);
if (!codeDir || runtimePackagesArg === undefined) throw new Error('code-loader: the code directory and the runtime packages are required');
const csv = (list: string | undefined): string[] => (list ?? '').split(',').filter((name) => name !== '');
/** What bundles keep external and the runtime provides (src/schemas/runtime-packages.ts). */
const RUNTIME_PACKAGES = csv(runtimePackagesArg);
const preloaded = withWs(csv(preloadArg));
/** Only pool members are given a list to load ahead (empty or not). */
const poolMember = preloadArg !== undefined;

// Resolved as the bundle will resolve them (from its own directory), so the module cache serves its imports.
const requireFromCode = createRequire(join(codeDir, 'index.js'));
const DEVTOOLS_CLIENT = 'chrome-remote-interface';
// A pool member warms up once told where its browser is, and is ready once that has run (or failed:
// it only saves time); one whose browser does not answer never is, and its pool replaces it. A
// member claimed before that has its bundle already and skips it: the CPU goes to its invocation.
const warmsUpDevtoolsClient = preloaded.includes(DEVTOOLS_CLIENT);
/** The ES module packages preload imported, by name: a member tries the page drivers among them out. */
const importedModules = new Map<string, unknown>();
// What the agent told, and what was done with it.
let browserEndpoint: string | undefined;
let bundleImports: string[] | undefined;
/** A member's invocation has come: its warm-ups stop. */
let claimed = false;
let protocolCached = false;
let standbyInstalled = false;
let devtoolsStandby: DevtoolsStandby | undefined;
await Promise.all(preloaded.map((name) => preload(name)));
if (!poolMember) announceReady();

// The agent's instructions, in either order; stdin ends once it has given both. The bundle's import
// does not hold up the browser's address (its top level may already connect).
const instructions = createInterface({ input: process.stdin });
instructions.on('line', (line) => {
  const instruction = JSON.parse(line) as LoaderInstruction;
  if ('claimed' in instruction) {
    claimed = true;
    return;
  }
  if ('bundle' in instruction) {
    // A bundle given ahead is imported while the member warms up; any other comes with the invocation.
    if (!instruction.ahead) claimed = true;
    void loadBundle(instruction.bundle);
    return;
  }
  browserEndpoint = instruction.browser;
  cacheDevtoolsProtocol();
  if (!poolMember || claimed) {
    void openDevtoolsStandby();
    if (poolMember) announceReady();
    return;
  }
  warmUpConsole();
  void Promise.all([warmHttpClients(), warmUpBrowserClients(browserEndpoint)])
    .then(async ([, warmedUp]) => {
      await openDevtoolsStandby();
      return warmedUp;
    })
    .then(announceReady);
});
instructions.once('close', () => process.stdin.destroy());

/**
 * A failure here ends the process as an uncaught error, which the agent reports as the code's failure
 * to load. A bundle given ahead is compiled whole as it is imported (up to EAGER_BUNDLE_MAX_BYTES).
 */
async function loadBundle(bundlePath: string): Promise<void> {
  bundleImports = runtimePackagesImportedBy(bundlePath);
  await Promise.all(bundleImports.filter((name) => !preloaded.includes(name)).map((name) => preload(name)));
  cacheDevtoolsProtocol();
  // Before the import, whose top level may connect already.
  void openDevtoolsStandby();
  // Only a bundle given ahead to a member not claimed yet: any other (and one claimed meanwhile) has an invocation waiting.
  const eager = !claimed && statSync(bundlePath).size <= EAGER_BUNDLE_MAX_BYTES;
  if (eager) setFlagsFromString('--no-lazy');
  try {
    await import(pathToFileURL(bundlePath).href);
  } finally {
    if (eager) setFlagsFromString('--lazy');
  }
}

/** `warmedUp`: the browser clients a pool member tried out in its browser (the agent logs them). */
function announceReady(warmedUp?: string[]): void {
  try {
    writeSync(CHANNEL_FD, `${JSON.stringify({ type: LOADER_READY_RECORD, ...(warmedUp ? { warmedUp } : {}) })}\n`);
  } catch {
    // started without the agent's channel
  }
}

/** Once the browser's address is known, for a bundle that will (or a pool member that may) connect with chrome-remote-interface. */
function cacheDevtoolsProtocol(): void {
  if (protocolCached || !browserEndpoint || !usesDevtoolsClient()) return;
  protocolCached = true;
  try {
    serveDevtoolsProtocolFromCache(requireFromCode.resolve(DEVTOOLS_CLIENT), browserEndpoint);
  } catch {
    // Not provided here: the bundle's import reports it.
  }
}

/** Whether the code will (or a pool member's code may) import chrome-remote-interface. */
function usesDevtoolsClient(): boolean {
  return (bundleImports ?? preloaded).includes(DEVTOOLS_CLIENT);
}

/** Once chrome-remote-interface is loaded for code that uses it. */
function installDevtoolsStandbyOnce(): void {
  if (standbyInstalled || !usesDevtoolsClient()) return;
  standbyInstalled = true;
  try {
    devtoolsStandby = installDevtoolsStandby(requireFromCode.resolve(DEVTOOLS_CLIENT));
  } catch {
    // Not provided here: the bundle's import reports it.
  }
}

/** Once the browser's address is known too; never fails (the handler's connect goes the usual way then). */
async function openDevtoolsStandby(): Promise<void> {
  installDevtoolsStandbyOnce();
  if (browserEndpoint) await devtoolsStandby?.open(browserEndpoint);
}

/** chrome-remote-interface's connects (browser-level, read-only) first, then the page drivers'; the names of those that ran. */
async function warmUpBrowserClients(wsEndpoint: string): Promise<string[]> {
  const warmedUp = warmsUpDevtoolsClient && (await warmUpDevtools(wsEndpoint)) ? [DEVTOOLS_CLIENT] : [];
  const drivers = preloaded.filter(isPageDriver).filter((name) => importedModules.has(name)).map((name) => ({ name, module: importedModules.get(name) }));
  return [...warmedUp, ...(await warmUpPageDrivers(drivers, wsEndpoint, () => claimed))];
}

async function warmUpDevtools(wsEndpoint: string): Promise<boolean> {
  try {
    await warmUpDevtoolsClient(requireFromCode.resolve(DEVTOOLS_CLIENT), wsEndpoint);
    return true;
  } catch {
    // The client is not provided here, or the browser refused: the handler's connect says so if it matters.
    return false;
  }
}

/**
 * The runtime packages the bundle imports, loaded before the bundle from the files its imports
 * resolve to (through the pod's node_modules link, to the shared runtime modules), so the bundle
 * finds them loaded; `ws` too (see withWs). A bundle that came with installed packages (which may
 * import runtime ones themselves) gets all of them.
 */
function runtimePackagesImportedBy(main: string): string[] {
  if (existsSync(join(dirname(main), 'node_modules'))) return withWs(RUNTIME_PACKAGES);
  // The artifact's main file imports the compiled entry (src/build/artifact.ts), which holds the imports.
  const mainSource = readFileSync(main, 'utf8');
  const entries = [...mainSource.matchAll(/^import ("[^"\n]+");$/gm)].map((match) => JSON.parse(match[1]) as string).filter((spec) => spec.startsWith('.'));
  const source = [mainSource, ...entries.map((spec) => readFileSync(join(dirname(main), spec), 'utf8'))].join('\n');
  // esbuild writes an external import as its specifier in quotes: "name" or "name/subpath".
  const imported = RUNTIME_PACKAGES.filter((name) => ['"', "'", '`'].some((quote) => source.includes(`${quote}${name}${quote}`) || source.includes(`${quote}${name}/`)));
  return withWs(imported);
}

/** `ws` is loaded too with puppeteer-core, which imports it (chrome-remote-interface 0.34 carries a `ws` of its own). */
function withWs(names: string[]): string[] {
  return names.includes('puppeteer-core') ? [...names, 'ws'] : names;
}

async function preload(name: string): Promise<void> {
  try {
    // A CommonJS package is required, whole, in one synchronous step: the bundle's import then finds
    // it loaded, and no other load of it (the protocol cache's, the warm-up's) can come while Node's
    // ES module loader holds it half loaded. Imported, each of its files would also be lexed for
    // its exports. `ws`, whose `exports` name an ES module wrapper too, is required by its CommonJS
    // entry (its wrapper's import cost a cold pod about 50 ms of CPU).
    const moduleEntry = name === 'ws' ? undefined : esmEntry(name);
    if (moduleEntry) importedModules.set(name, await import(pathToFileURL(moduleEntry).href));
    else requireFromCode(name);
  } catch {
    // Not provided here, or not loadable on its own: the bundle's import reports it if it needs it.
  }
}

/**
 * Node compiles each HTTP client on a process's first request with it: fetch's (its bundled undici,
 * about 50 ms of CPU) and http's (a few ms); and a request that sends and reads a body runs code a
 * bodiless one does not (fetch's first such request took about 5 ms more than its later ones). A
 * pool member posts a small JSON body with each while it waits and reads the JSON answer, as the
 * SDKs do with `next` and the result (@browserbasehq/sdk-functions uses fetch, this project's SDK
 * http), so that neither compiles inside the invocation. A cold pod does not: its start is bound by
 * the CPU its browser shares. The answers (404s: the path is no route of the runtime API) are read
 * for nothing else.
 */
async function warmHttpClients(): Promise<void> {
  const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
  if (!runtimeApi) return;
  const url = `http://${runtimeApi}/warm-up`;
  const body = JSON.stringify({ warmUp: true });
  // The runtime API is the agent's: if it does not answer, the SDK's own request says so. The http
  // answer is read as this project's SDK reads it (src/sdk/runtime-api-client.ts), not with readBody.
  const viaHttp = new Promise<void>((resolve) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const sent = request(url, { method: 'POST', headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.once('end', () => resolve(parseJsonAnswer(Buffer.concat(chunks).toString('utf8'))));
      answer.once('error', () => resolve());
    });
    sent.once('error', () => resolve());
    sent.end(body);
  });
  const viaFetch = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((answer) => answer.json()).then(
    () => undefined,
    () => undefined,
  );
  await Promise.all([viaHttp, viaFetch]);
}

function parseJsonAnswer(text: string): void {
  try {
    JSON.parse(text);
  } catch {
    // Not the agent's answer: nothing to warm up with.
  }
}

/** The file an ESM `import` of the package loads, when its exports name one apart from require's. */
function esmEntry(name: string): string | undefined {
  const manifestPath = requireFromCode.resolve(`${name}/package.json`);
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
