// The scripts `browserfn pod-agent` and `browserfn build-agent` run, which the node agent also runs
// without the CLI. The pod agent runs as one file when the build bundled it
// (scripts/bundle-pod-agent.ts) and none of the files it was made from has changed since: Node
// loading its 118 files (53 of its own) one by one took about 55 ms more, of CPU that a cold
// pod's browser start was waiting for. Otherwise (tsc or npm ran since) the modules run as they are.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const POD_AGENT_BUNDLE_FILE = 'main.bundle.mjs';
/** How the bundle's chunks beside it are named (the agent's code, which the entry imports). */
export const POD_AGENT_CHUNK_PREFIX = 'main.bundle-';
/** The files the bundle was made from (the packages' too), relative to its folder: a JSON array. */
export const POD_AGENT_BUNDLE_INPUTS_FILE = 'main.bundle.inputs.json';

const POD_AGENT_MAIN = fileURLToPath(new URL('../pod-agent/main.js', import.meta.url));
const BUILD_AGENT_MAIN = fileURLToPath(new URL('../../build/main.js', import.meta.url));

const AGENT_COMMANDS = ['pod-agent', 'build-agent'] as const;
type AgentCommand = (typeof AGENT_COMMANDS)[number];

export const isAgentCommand = (command: string | undefined): command is AgentCommand => AGENT_COMMANDS.some((name) => name === command);

/** The script each agent command runs: the pod agent's bundle when it is fresh, else its modules. */
export function agentMains(podAgentMain = POD_AGENT_MAIN): Record<AgentCommand, string> {
  const bundle = resolve(dirname(podAgentMain), POD_AGENT_BUNDLE_FILE);
  return { 'pod-agent': bundleIsFresh(bundle) ? bundle : podAgentMain, 'build-agent': BUILD_AGENT_MAIN };
}

/** Whether the bundle and its list of inputs exist and no input is newer than the bundle (or gone). */
function bundleIsFresh(bundle: string): boolean {
  try {
    const builtAt = statSync(bundle).mtimeMs;
    const inputs = JSON.parse(readFileSync(resolve(dirname(bundle), POD_AGENT_BUNDLE_INPUTS_FILE), 'utf8')) as unknown;
    if (!Array.isArray(inputs) || inputs.length === 0) return false;
    return inputs.every((input) => typeof input === 'string' && statSync(resolve(dirname(bundle), input)).mtimeMs <= builtAt);
  } catch {
    return false;
  }
}
