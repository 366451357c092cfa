// Processes a host process started, from /proc (what the node agent moves into a pod's cgroups).
import { readdirSync, readFileSync } from 'node:fs';

/** The child processes of `pid`, from all of its threads; none once it has exited. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]));
  return tree;
}
