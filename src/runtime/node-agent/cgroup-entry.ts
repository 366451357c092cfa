// How a pod's first process joins its cgroups: a shell writes itself into each cgroup.procs, then
// execs the pod's command, switching to the pod's user last (joining a cgroup takes the server's
// rights). Everything the pod starts after that (Chromium, agents, user code) is inside.

/** `command` made to enter every cgroup whose `cgroup.procs` is in `procsFiles`, then to run as `user`. */
export function enterCgroups(procsFiles: string[], command: string[], user?: { uid: number; gid: number }): string[] {
  const files = [...new Set(procsFiles)];
  const asUser = user ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'] : [];
  if (files.length === 0) return [...asUser, ...command];
  // `sh -c script a b c`: a is $0, b $1...; the files come first, then the command as "$@".
  const writes = files.map((_, i) => `echo 0 > "\${${i}}"`).join(' && ');
  const shift = files.length > 1 ? ` && shift ${files.length - 1}` : '';
  return ['/bin/sh', '-c', `${writes}${shift} && exec "$@"`, ...files, ...asUser, ...command];
}
