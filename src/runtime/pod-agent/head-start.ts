// What a pod's run waits on longest, started before the run exists: the code loader's process and
// an unproxied local browser, the two longest steps of a cold invocation. A cold pod's entry
// (main.ts) starts them before it imports the agent's code (about 40 ms of import, and the agent's
// set-up after it); the run adopts them (InvocationRun), and starts them itself when no entry did (a
// pool member, whose start is off any invocation's path). A cold pod handed its artifact by the
// node's cache also unpacks it here and hands the code loader its bundle, which it would otherwise
// wait for until the agent had loaded. Measured, this saves about 45 ms with the full browser and
// nothing with the headless shell, whose cold start keeps both cores busy either way
// (docs/pools-measurements.md, twenty-fourth session). In a sandbox made ahead, the runtime API and
// the code loader were started before the pod existed (prepareAhead); the pod adopts them.
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PodEnv } from '../../schemas/pod-env.js';
import { readAgentSettings, runtimeModulesDirOf, type AgentSettings } from '../agent-common/agent-settings.js';
import type { BrowserProvider, LeasedBrowser } from '../chromium/browser-provider.js';
import { LocalChromiumProvider } from '../chromium/local-chromium-provider.js';
import { podLayout, type PodLayout } from '../sandbox/pod-layout.js';
import { linkRuntimeModules } from '../sandbox/runtime-modules.js';
import { startSandboxedProcess, type SandboxedProcess } from '../sandbox/sandboxed-process.js';
import { CODE_LOADER_PATH, CODE_LOADER_SUPPORT_PATHS } from '../sandbox/code-loader-files.js';
import { RUNTIME_PACKAGES } from '../../schemas/runtime-packages.js';
import type { LoaderInstruction } from '../sandbox/channel.js';
import { RuntimeApiServer } from './runtime-api-server.js';
import type { UnpackedBundle } from './bundle-unpack.js';

export interface HeadStart {
  layout: PodLayout;
  /** Listening for the code loader, which it answers once the run serves it. */
  api: RuntimeApiServer;
  /** The code loader's process, spawned once the runtime API listens. */
  user: Promise<SandboxedProcess>;
  /** The browser's launch, when started here. */
  browser: Promise<LeasedBrowser> | undefined;
  /** Gives up a launch still under way (and kills what it started): the run's launches take it too. */
  launchAbort: AbortController;
  /** The bundle, once unpacked and handed to the code loader (a cold pod with its artifact from the node's cache). */
  bundle?: Promise<UnpackedBundle>;
}

/**
 * A cold pod's head start, from the agent's environment; none when that is wrong (the agent says how).
 * `prepared` (a sandbox made ahead) is adopted when it fits the pod's settings, else stopped.
 */
export function startColdPodAhead(env: NodeJS.ProcessEnv, prepared?: PreparedAhead): HeadStart | undefined {
  let settings: AgentSettings;
  try {
    settings = readAgentSettings(env);
  } catch {
    prepared?.discard();
    return undefined;
  }
  // A sidecar's browser starts as its own container; a proxied one once the run's session proxy listens.
  const launchesHere = settings.sidecarCdpPort === undefined && settings.proxyPort === undefined;
  const browsers = launchesHere ? localBrowsers(settings) : undefined;
  const fits = prepared !== undefined && preparedFits(prepared, settings, env);
  if (prepared && !fits) prepared.discard();
  const started = fits ? withBrowser(settings, prepared, browsers) : startAhead(settings, env, browsers);
  const { artifactFile } = settings;
  if (artifactFile) {
    // Once the loader is spawned: the unpacking holds this thread.
    started.bundle = started.user.then((loader) => handBundle(loader, artifactFile, started.layout.codeDir));
    started.bundle.catch(() => undefined);
  }
  return started;
}

/**
 * What a sandbox made ahead starts before its pod exists (node-agent/spare-sandboxes.ts): the
 * runtime API and a cold pod's code loader, whose Node waits for its bundle. Neither holds anything
 * of a pod: no token, no code, no browser.
 */
export interface PreparedAhead {
  layout: PodLayout;
  api: RuntimeApiServer;
  user: Promise<SandboxedProcess>;
  /** The settings and environment it was started with, which the pod's must match. */
  startedWith: CodeLoaderStart;
  /** Stops it (the pod's own settings did not fit). */
  discard(): void;
}

interface CodeLoaderStart {
  podDir: string;
  runtimeModulesDir: string;
  /** What of the agent's environment the loader's is made from (sandboxed-process.ts). */
  path: string | undefined;
  tz: string | undefined;
}

/** Starts the runtime API and a cold pod's code loader from the environment a sandbox made ahead is given (its pod's folder, the runtime modules, PATH, TZ). */
export function prepareAhead(env: NodeJS.ProcessEnv): PreparedAhead {
  const podDir = env[PodEnv.podDir];
  if (!podDir) throw new Error(`a sandbox made ahead is given its pods' folder (${PodEnv.podDir})`);
  const startedWith: CodeLoaderStart = { podDir: resolve(podDir), runtimeModulesDir: runtimeModulesDirOf(env), path: env.PATH, tz: env.TZ };
  const layout = makeLayout(startedWith.podDir);
  const api = new RuntimeApiServer();
  const loader = { ...startedWith, poolMember: false, preload: [] };
  const user = api.listen().then((runtimeApi) => startCodeLoader(loader, layout, runtimeApi, env));
  user.catch(() => undefined);
  const discard = () => {
    void api.close();
    void user.then((started) => started.kill(), () => undefined);
  };
  return { layout, api, user, startedWith, discard };
}

function preparedFits(prepared: PreparedAhead, settings: AgentSettings, env: NodeJS.ProcessEnv): boolean {
  const { podDir, runtimeModulesDir, path, tz } = prepared.startedWith;
  return !settings.poolMember && settings.podDir === podDir && settings.runtimeModulesDir === runtimeModulesDir && env.PATH === path && env.TZ === tz;
}

/** Unpacks the artifact (verified by the node's cache) and tells the loader its bundle. */
async function handBundle(loader: SandboxedProcess, artifactFile: string, codeDir: string): Promise<UnpackedBundle> {
  // Loaded only now: the unpacking's code (tar, 130 KB) would otherwise hold up the spawns before it.
  const { unpackBundle } = await import('./bundle-unpack.js');
  const bundle = await unpackBundle(readFileSync(artifactFile), codeDir);
  loader.stdin?.write(`${JSON.stringify({ bundle: bundle.path } satisfies LoaderInstruction)}\n`);
  return bundle;
}

/** Browsers launched in the pod, as its settings say. */
export function localBrowsers(settings: AgentSettings): LocalChromiumProvider {
  return new LocalChromiumProvider({ executablePath: settings.chromiumPath, sandbox: settings.chromiumSandbox });
}

/**
 * Starts the code loader and, with `browsers` given, the browser. Their failures are the run's to
 * report: until it adopts them, none is an unhandled rejection.
 */
export function startAhead(settings: AgentSettings, agentEnv: NodeJS.ProcessEnv, browsers?: BrowserProvider): HeadStart {
  const layout = makeLayout(settings.podDir);
  const api = new RuntimeApiServer();
  const user = api.listen().then((runtimeApi) => startCodeLoader(settings, layout, runtimeApi, agentEnv));
  user.catch(() => undefined);
  return withBrowser(settings, { layout, api, user }, browsers);
}

function withBrowser(settings: AgentSettings, started: Pick<HeadStart, 'layout' | 'api' | 'user'>, browsers?: BrowserProvider): HeadStart {
  const launchAbort = new AbortController();
  const browser = browsers?.acquire({ workDir: started.layout.browserDir, viewport: settings.viewport, signal: launchAbort.signal });
  browser?.catch(() => undefined);
  return { layout: started.layout, api: started.api, user: started.user, browser, launchAbort };
}

function makeLayout(podDir: string): PodLayout {
  const layout = podLayout(podDir);
  for (const dir of [layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir, layout.browserDir]) mkdirSync(dir, { recursive: true });
  return layout;
}

type CodeLoaderSettings = Pick<AgentSettings, 'podDir' | 'runtimeModulesDir' | 'poolMember' | 'preload'>;

/** The code loader, which imports the bundle once told where it is (InvocationRun) and loads the runtime packages meanwhile. */
function startCodeLoader(settings: CodeLoaderSettings, layout: PodLayout, runtimeApi: string, agentEnv: NodeJS.ProcessEnv): SandboxedProcess {
  const runtimeModules = linkRuntimeModules(settings.podDir, settings.runtimeModulesDir);
  return startSandboxedProcess({
    script: CODE_LOADER_PATH,
    args: [layout.codeDir, RUNTIME_PACKAGES.join(','), ...(settings.poolMember ? [settings.preload.join(',')] : [])],
    cwd: layout.appDir,
    writable: [layout.appDir, layout.homeDir, layout.tmpDir],
    homeDir: layout.homeDir,
    tmpDir: layout.tmpDir,
    readable: [...CODE_LOADER_SUPPORT_PATHS, layout.codeDir, layout.appDir, layout.homeDir, layout.tmpDir, ...runtimeModules],
    env: { AWS_LAMBDA_RUNTIME_API: runtimeApi, BB_FUNCTIONS_PHASE: 'runtime' },
    agentEnv,
    stdin: true,
  });
}
