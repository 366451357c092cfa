// Where this process's cgroups are, from /proc/self/cgroup and /proc/self/mountinfo: a cgroup v1
// controller's own hierarchy, or the one v2 hierarchy. A container's mount may show only a subtree.
import { join, relative } from 'node:path';

export interface CgroupMembership {
  /** The v1 controllers of the hierarchy (e.g. `cpu`, `cpuacct`); empty for v2's line `0::`. */
  controllers: string[];
  /** The process's cgroup, as a path within that hierarchy. */
  path: string;
}

export interface CgroupMount {
  /** The hierarchy's folder this mount shows. */
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** A cgroup folder: where it is mounted, and its path within its hierarchy. */
export interface CgroupDir {
  dir: string;
  path: string;
  mount: CgroupMount;
}

export function parseProcCgroup(text: string): CgroupMembership[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, , controllers, path] = /^(\d+):([^:]*):(.*)$/.exec(line) ?? [];
      return { controllers: (controllers ?? '').split(',').filter(Boolean), path: path ?? '' };
    });
}

export function parseMountinfo(text: string): CgroupMount[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left, right = ''] = line.split(' - ');
      const fields = left.split(' ');
      const [fsType, , superOptions = ''] = right.split(' ');
      return { root: fields[3], mountPoint: fields[4], fsType, superOptions: superOptions.split(',') };
    });
}

/** Whether the cgroup path `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  return !relative(outer, inner).startsWith('..');
}

/** Where a cgroup path is, given the mount that shows it; throws for a path outside what it shows. */
export function underMount(mount: CgroupMount, path: string): string {
  if (!isWithin(path, mount.root)) throw new Error(`the cgroup ${path} is outside the mounted ${mount.root}`);
  return join(mount.mountPoint, relative(mount.root, path));
}

/** Whether the process's cgroups put `controller` in a v1 hierarchy of its own (possibly shared with others). */
export function isOnV1(memberships: CgroupMembership[], controller: string): boolean {
  return memberships.some((m) => m.controllers.includes(controller));
}

/** The process's cgroup in the v1 hierarchy of `controller`; undefined where that hierarchy is not there or not mounted. */
export function v1CgroupDir(memberships: CgroupMembership[], mounts: CgroupMount[], controller: string): CgroupDir | undefined {
  const membership = memberships.find((m) => m.controllers.includes(controller));
  const mount = mounts.find((m) => m.fsType === 'cgroup' && m.superOptions.includes(controller));
  if (!membership || !mount) return undefined;
  return { dir: underMount(mount, membership.path), path: membership.path, mount };
}

/** The process's cgroup in the v2 hierarchy; undefined where none is mounted. */
export function v2CgroupDir(memberships: CgroupMembership[], mounts: CgroupMount[]): CgroupDir | undefined {
  const membership = memberships.find((m) => m.controllers.length === 0);
  const mount = mounts.find((m) => m.fsType === 'cgroup2');
  if (!membership || !mount) return undefined;
  return { dir: underMount(mount, membership.path), path: membership.path, mount };
}

/** Where a controller's hierarchy has this process: its cgroup folder, v1 preferred on hybrid machines. */
export interface ControllerCgroup {
  version: 1 | 2;
  /** The process's own cgroup folder in that hierarchy. */
  own: string;
}

/** The hierarchy of `controller` (v1 where the process is on one for it, else v2) and the process's folder in it, or why there is none. */
export function controllerCgroup(memberships: CgroupMembership[], mounts: CgroupMount[], controller: string): ControllerCgroup | string {
  if (isOnV1(memberships, controller)) {
    const v1 = v1CgroupDir(memberships, mounts, controller);
    return v1 ? { version: 1, own: v1.dir } : `the ${controller} cgroup (v1) is not mounted`;
  }
  const v2 = v2CgroupDir(memberships, mounts);
  return v2 ? { version: 2, own: v2.dir } : `no ${controller} cgroup: neither cgroup v1 with the ${controller} controller nor cgroup v2 is mounted`;
}
