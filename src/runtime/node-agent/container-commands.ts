// What a pod's container runs on this machine: its command (`browserfn <command>` is this package's
// own code with the same Node; `chromium` the configured Chromium) and its environment, with
// `$(VAR)` expanded as the kubelet does and paths mapped to where the pod's folders are.
import { fileURLToPath } from 'node:url';
import type { Container } from '../../schemas/pod.js';
import { PodEnv } from '../../schemas/pod-env.js';
import { agentMains, isAgentCommand } from './agent-mains.js';
import type { CodeMounts } from './code-mounts.js';
import type { LaunchedContainer } from './pod-launcher.js';

const CLI_MAIN = fileURLToPath(new URL('../../cli/main.js', import.meta.url));

/** A sandbox's view of the package code, and whether Chromium's own sandbox works in it. */
export interface SandboxView {
  code: CodeMounts;
  chromiumSandbox: boolean;
}

export class ContainerCommands {
  /** `browserfn pod-agent` and `browserfn build-agent` run without the CLI around them, for speed. */
  private readonly agentMains = agentMains();

  /** `baseEnv`: what every container starts with (the agent's own settings for pods). */
  constructor(private readonly baseEnv: Record<string, string> = {}) {}

  /** A container's command and environment (its own resolved by container-env.ts), paths mapped by `localPath`. */
  resolve(container: Container, ownEnv: Record<string, string>, podEnv: Record<string, string>, localPath: (value: string) => string, sandbox?: SandboxView): LaunchedContainer {
    const env = this.environment(ownEnv, podEnv, localPath);
    const expand = (arg: string) => localPath(arg).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
    // No command: the image's entrypoint, which is `browserfn` (deploy/Dockerfile).
    const command = this.command([...(container.command ?? ['browserfn']), ...(container.args ?? [])].map(expand), sandbox);
    return { name: container.name, command, env, cwd: container.volumeMounts?.[0]?.mountPath ?? '/' };
  }

  /** The main of the agent a `browserfn <agent>` command runs; undefined for any other command. */
  agentMainOf(command: string[] | undefined): string | undefined {
    const [program, name] = command ?? [];
    return program === 'browserfn' && isAgentCommand(name) ? this.agentMains[name] : undefined;
  }

  /** The one place a container's environment is made: base, then the container's own, then the pod's. */
  private environment(ownEnv: Record<string, string>, podEnv: Record<string, string>, localPath: (value: string) => string): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...this.baseEnv };
    for (const [name, value] of Object.entries(ownEnv)) env[name] = localPath(value);
    return Object.assign(env, podEnv);
  }

  /** `browserfn <command>` runs this package's own code with the same Node (inside a sandbox: its view of them). */
  private command(command: string[], sandbox?: SandboxView): string[] {
    const node = sandbox ? sandbox.code.node : process.execPath;
    const inside = (path: string) => (sandbox ? sandbox.code.inside(path) : path);
    const agentMain = this.agentMainOf(command);
    if (agentMain) return [node, inside(agentMain), ...command.slice(2)];
    if (command[0] === 'browserfn') return [node, inside(CLI_MAIN), ...command.slice(1)];
    if (command[0] === 'chromium') {
      // The pod template's Chromium runs without its sandbox (a container without user
      // namespaces); inside ours it can have it.
      const args = command.slice(1).filter((arg) => !(sandbox?.chromiumSandbox && arg === '--no-sandbox'));
      return [this.baseEnv[PodEnv.chromiumPath] ?? 'chromium', ...args];
    }
    return command;
  }
}
