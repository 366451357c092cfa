// The command line that runs one pod in its own namespaces: pasta gives it a network namespace with
// outbound internet (and nothing of the host's loopback but the forwarded ports), bubblewrap gives
// it its own user, mount, PID, IPC and UTS namespaces with only the listed folders visible. The
// network may also be made ahead (spare-networks.ts): the pod's bubblewrap then joins it.
import { existsSync } from 'node:fs';

export interface SandboxMount {
  /** Path on the host. */
  source: string;
  /** Path inside the sandbox. */
  target: string;
  writable?: boolean;
}

export type SandboxNetwork = 'pasta' | 'host';

export interface PodSandboxSpec {
  /** `pasta`: a network namespace of its own; `host`: the host's network (operator opt-in). */
  network: SandboxNetwork;
  /** Host loopback TCP ports reachable at the same port of the pod's loopback (the control plane). */
  forwardPorts: number[];
  /** Where on the host's loopback a forwarded port leads, when not to the same port (a pod's own entrance). */
  hostPorts?: Record<number, number>;
  /**
   * Most processes and threads the pod's host user may have (RLIMIT_NPROC), so a fork bomb stops
   * there. Only meaningful when the pod runs as a host user of its own.
   */
  maxProcesses?: number;
  mounts: SandboxMount[];
  /** Size of the pod's own /dev/shm (a tmpfs, charged to the pod's memory); unset: the kernel's default, half the machine's memory. */
  shmBytes?: number;
  /** The command run inside; its exit ends the sandbox. */
  command: string[];
  /**
   * With `pasta`: the host pid of the process holding a network made ahead (`networkHolderCommand`),
   * whose user, network and PID namespaces the pod joins instead of starting a pasta of its own.
   * The forwarded ports are then those that pasta was started with.
   */
  joinNetworkOf?: number;
}

export type PodNetworkSpec = Pick<PodSandboxSpec, 'forwardPorts' | 'hostPorts'>;

/** The uid and gid processes have inside the sandbox (the pod templates' runAsUser). */
export const SANDBOX_UID = 10001;

/**
 * What of /etc a pod needs: name resolution, TLS roots, fonts, users (npm and Chromium look
 * themselves up), the alternatives links /usr/bin points through, Chromium's wrapper settings.
 */
const ETC_ENTRIES = [
  'resolv.conf', 'hosts', 'host.conf', 'nsswitch.conf', 'gai.conf', 'ssl', 'ca-certificates', 'ca-certificates.conf',
  'fonts', 'passwd', 'group', 'alternatives', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'timezone',
  'mime.types', 'chromium', 'chromium.d',
];

/**
 * Folders under /usr that hold the operator's settings, not software: npm's global config is
 * `<node prefix>/etc/npmrc`, where a registry token may be. Empty in every pod (Chromium reads any
 * file it can see); a build's npm is given that one file (node agent).
 */
const OPERATOR_SETTINGS_FOLDERS = ['/usr/etc', '/usr/local/etc'];

export function sandboxCommand(spec: PodSandboxSpec): [string, string[]] {
  const bwrap = ['bwrap', ...bwrapArguments(spec), '--', ...spec.command];
  const outermost =
    spec.network === 'host' ? bwrap
    : spec.joinNetworkOf !== undefined ? joinNetworkCommand(spec.joinNetworkOf, bwrap)
    : ['pasta', ...pastaArguments(spec), '--', ...bwrap];
  const command = spec.maxProcesses ? ['prlimit', `--nproc=${spec.maxProcesses}:${spec.maxProcesses}`, '--', ...outermost] : outermost;
  return [command[0], command.slice(1)];
}

/**
 * A pod's network made ahead: pasta with the pod's forwardings around `holder`, a process that
 * keeps the namespaces alive until it ends (pasta ends with it).
 */
export function networkHolderCommand(spec: PodNetworkSpec, holder: string[]): [string, string[]] {
  return ['pasta', [...pastaArguments(spec), '--', ...holder]];
}

/**
 * `command` run in the user, network and PID namespaces of host process `pid`, as if pasta had
 * started it. It keeps its host credentials, which are root in that user namespace (pasta maps
 * its user there). In that PID namespace, whose init is the holder, a process orphaned when the
 * pod is killed (bubblewrap's inner one) is reaped as the holder ends, not left to the host's init.
 */
export function joinNetworkCommand(pid: number, command: string[]): string[] {
  return ['nsenter', `--target=${pid}`, '--user', '--net', '--pid', '--preserve-credentials', '--', ...command];
}

function pastaArguments(spec: PodNetworkSpec): string[] {
  // Every forwarding is explicit: pasta's default ("auto") would mirror the host's listening
  // loopback ports into the pod and the pod's into the host.
  const forwards = spec.forwardPorts.map((port) => (spec.hostPorts?.[port] ? `${port}:${spec.hostPorts[port]}` : String(port)));
  const tcpToHost = forwards.length > 0 ? forwards.join(',') : 'none';
  return ['--config-net', '--quiet', '--no-map-gw', '-t', 'none', '-u', 'none', '-T', tcpToHost, '-U', 'none'];
}

function bwrapArguments(spec: PodSandboxSpec): string[] {
  const args = [
    '--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID),
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--hostname', 'pod',
    // Outermost process dies with its parent, and every process in the PID namespace with it.
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
    '--ro-bind', '/usr', '/usr',
    '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
    '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
    ...(spec.shmBytes ? ['--size', String(spec.shmBytes)] : []), '--tmpfs', '/dev/shm',
  ];
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  for (const folder of OPERATOR_SETTINGS_FOLDERS) if (existsSync(folder)) args.push('--tmpfs', folder);
  for (const mount of spec.mounts) args.push(mount.writable ? '--bind' : '--ro-bind', mount.source, mount.target);
  return args;
}
