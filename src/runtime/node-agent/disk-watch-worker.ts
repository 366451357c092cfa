// The disk watch's worker thread: measures the pods it is sent and answers with each limited
// folder's usage (what it lists, and the deleted files the pod holds open that were in it), so
// that walking pods' files never holds the server's event loop.
import { parentPort } from 'node:worker_threads';
import { folderBytes } from './folder-usage.js';
import { deviceOf, heldDeletedFiles, podProcesses, processChildren } from './held-files.js';

export interface UsageRequest {
  pods: {
    folders: { folder: string; mountPath: string; limitBytes: number }[];
    /** The pod's first processes, and its memory cgroup's cgroup.procs when it has one. */
    rootPids: number[];
    procsFile?: string;
  }[];
}

/** Per pod, per folder: bytes. */
export type UsageAnswer = number[][];

parentPort?.on('message', ({ pods }: UsageRequest) => {
  const children = processChildren();
  const answer: UsageAnswer = pods.map(({ folders, rootPids, procsFile }) => {
    const usage = folders.map(({ folder, limitBytes }) => folderBytes(folder, limitBytes));
    const device = folders.length > 0 ? deviceOf(folders[0].folder) : undefined;
    if (device === undefined) return usage;
    for (const file of heldDeletedFiles(podProcesses(rootPids, procsFile, children), device)) {
      // Where it was, by the path its process saw; a file of no folder counts to the first.
      const index = folders.findIndex(({ folder, mountPath }) => [folder, mountPath].some((root) => file.path === root || file.path.startsWith(root.replace(/\/?$/, '/'))));
      usage[Math.max(index, 0)] += file.bytes;
    }
    return usage;
  });
  parentPort!.postMessage(answer);
});
