// Node's permission model for user code: reads only where the code and the runtime's packages
// live, writes only under the pod directory, no child processes, workers or native addons.
// Node 20 calls it --experimental-permission, Node >= 22.13 --permission; Node >= 25 also gates
// the network (--allow-net), which user code needs for CDP and the runtime API.

/** Files that libraries of the runtime image probe at import without catching a denial (playwright-core's WSL check). */
export const LIBRARY_PROBE_PATHS = ['/proc/version', '/proc/sys/fs/binfmt_misc/WSLInterop', '/run/WSL'];

export interface FsPermissions {
  read: string[];
  write: string[];
}

/** The node flags enforcing `permissions`, or undefined when this Node has no permission model. */
export function nodePermissionFlags(permissions: FsPermissions, available: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string[] | undefined {
  const flags: string[] = [];
  if (available.has('--permission')) {
    flags.push('--permission');
  } else if (available.has('--experimental-permission')) {
    flags.push('--experimental-permission');
    // The "experimental feature" warning would otherwise land in every Function's logs.
    if (available.has('--disable-warning')) flags.push('--disable-warning=ExperimentalWarning');
  } else {
    return undefined;
  }
  // One flag per path: Node >= 20.16 no longer splits a flag's value on commas.
  for (const path of unique(permissions.read)) flags.push(`--allow-fs-read=${path}`);
  for (const path of unique(permissions.write)) flags.push(`--allow-fs-write=${path}`);
  if (available.has('--allow-net')) flags.push('--allow-net');
  return flags;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
