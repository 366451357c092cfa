// Unsandboxed pods see their volumes at host folders, not at their mount paths: a container's
// arguments and environment name mount paths (/work, /tmp), which must become those folders.
// One pass over each value, matching a mount path only as a whole path component, so a mapped
// folder (itself under the host's /tmp) is never mapped again and /tmpfoo stays /tmpfoo.
export interface VolumeFolder {
  /** The volume's name in the pod. */
  name?: string;
  folder: string;
  mountPath: string;
  /** Mounted read-only (projected volumes, which the node agent fills). */
  readOnly?: boolean;
}

/** A function mapping every mount path in a value (alone, after `=`, `:` or `,`) to its host folder. */
export function localPathMapper(volumes: VolumeFolder[]): (value: string) => string {
  if (volumes.length === 0) return (value) => value;
  const folders = new Map(volumes.map((v) => [v.mountPath.replace(/\/+$/, '') || '/', v.folder]));
  // Longest first: /work/cache wins over /work.
  const alternatives = [...folders.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
  const pattern = new RegExp(`(^|[=:,])(${alternatives})(?=/|$|[:,])`, 'g');
  return (value) => value.replace(pattern, (_whole, before: string, mountPath: string) => before + folders.get(mountPath)!);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
