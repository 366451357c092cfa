// Settings of a pod agent or build agent, from the environment the node agent (or kubelet) gives it.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultRuntimeModulesDir } from '../sandbox/runtime-modules.js';
import { RUNTIME_PACKAGES, isRuntimePackage, type RuntimePackage } from '../../schemas/runtime-packages.js';
import { PodEnv } from '../../schemas/pod-env.js';
import { defaultChromiumPath } from '../../config/chromium-build.js';

export interface AgentSettings {
  controlUrl: string;
  namespace: string;
  podName: string;
  podToken: string;
  /** Writable, empty directory owned by this pod. */
  podDir: string;
  chromiumPath: string;
  /** Encodes session recordings (BROWSERFN_FFMPEG_PATH); missing, sessions have no video. */
  ffmpegPath: string;
  /** Chromium keeps its own sandbox (BROWSERFN_CHROMIUM_SANDBOX=1, set by a node agent whose pod sandbox allows it). */
  chromiumSandbox: boolean;
  /** node_modules providing the packages bundles keep external. */
  runtimeModulesDir: string;
  /**
   * The browser window size, given in the pod spec (BROWSERFN_VIEWPORT=WIDTHxHEIGHT) so that
   * Chromium can start before the invocation input arrives.
   */
  viewport?: { width: number; height: number };
  /** Set when Chromium runs as a sidecar container of the pod (BROWSERFN_CDP_PORT); unset: launch it here. */
  sidecarCdpPort?: number;
  /**
   * Set when the session takes proxies (BROWSERFN_PROXY_PORT): the session proxy listens on this
   * port of the pod's loopback (0: any free one), and Chromium goes through it.
   */
  proxyPort?: number;
  /** The sha256 the pod's artifact must hash to (BROWSERFN_ARTIFACT_SHA256, from the pod spec). */
  artifactSha256?: string;
  /**
   * The artifact, already verified, as a read-only file the node agent's cache hands the pod
   * (BROWSERFN_ARTIFACT_FILE); unset: the agent downloads it.
   */
  artifactFile?: string;
  /** A warm pool member (BROWSERFN_POOL_MEMBER=1): start the browser, then wait to be claimed. */
  poolMember: boolean;
  /**
   * The runtime packages a pool member loads before it is claimed (BROWSERFN_PRELOAD, comma
   * separated; unset: all of them). Those its invocation imports besides are loaded once claimed.
   */
  preload: RuntimePackage[];
  /**
   * Also write each console entry of the handler, as it comes and redacted, to this agent's own log
   * (BROWSERFN_ECHO_CONSOLE=1, set by `browserfn dev` so that its terminal shows them live).
   */
  echoConsole: boolean;
}

const REQUIRED = [PodEnv.controlUrl, PodEnv.namespace, PodEnv.podName, PodEnv.podToken, PodEnv.podDir];

export function readAgentSettings(env: NodeJS.ProcessEnv): AgentSettings {
  const missing = REQUIRED.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`the agent needs ${missing.join(', ')} in its environment`);
  const podDir = resolve(env[PodEnv.podDir] as string);
  mkdirSync(podDir, { recursive: true });
  const cdpPort = env[PodEnv.cdpPort];
  const preload = env[PodEnv.preload];
  return {
    controlUrl: (env[PodEnv.controlUrl] as string).replace(/\/+$/, ''),
    namespace: env[PodEnv.namespace] as string,
    podName: env[PodEnv.podName] as string,
    podToken: env[PodEnv.podToken] as string,
    podDir,
    chromiumPath: env[PodEnv.chromiumPath] || defaultChromiumPath(),
    ffmpegPath: env.BROWSERFN_FFMPEG_PATH || '/usr/bin/ffmpeg',
    chromiumSandbox: env[PodEnv.chromiumSandbox] === '1',
    runtimeModulesDir: runtimeModulesDirOf(env),
    viewport: viewportFrom(env[PodEnv.viewport]),
    sidecarCdpPort: cdpPort ? portFrom(cdpPort, PodEnv.cdpPort) : undefined,
    proxyPort: env[PodEnv.proxyPort] ? (env[PodEnv.proxyPort] === '0' ? 0 : portFrom(env[PodEnv.proxyPort]!, PodEnv.proxyPort)) : undefined,
    artifactSha256: env[PodEnv.artifactSha256] || undefined,
    artifactFile: env[PodEnv.artifactFile] || undefined,
    poolMember: env[PodEnv.poolMember] === '1',
    preload: preload === undefined ? [...RUNTIME_PACKAGES] : preloadFrom(preload),
    echoConsole: env[PodEnv.echoConsole] === '1',
  };
}

/** Where the packages bundles keep external are (BROWSERFN_RUNTIME_MODULES; unset: this package's own). */
export function runtimeModulesDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.BROWSERFN_RUNTIME_MODULES || defaultRuntimeModulesDir());
}

function preloadFrom(raw: string): RuntimePackage[] {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !isRuntimePackage(name));
  if (unknown.length > 0) throw new Error(`${PodEnv.preload} names ${unknown.join(', ')}, which the runtime does not provide (it provides ${RUNTIME_PACKAGES.join(', ')})`);
  return names as RuntimePackage[];
}

function portFrom(raw: string, name: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name} must be a port number, got "${raw}"`);
  return port;
}

function viewportFrom(raw: string | undefined): AgentSettings['viewport'] {
  if (!raw) return undefined;
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(raw);
  if (!match) throw new Error(`${PodEnv.viewport} must look like 1280x720, got "${raw}"`);
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** A positive number of seconds from the environment, or the default. */
export function secondsFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, got "${raw}"`);
  return value;
}
