// Measures the limited folders of running pods every few seconds, as the kubelet's eviction manager
// does, and sooner as they fill (disk-watch-pace.ts), and calls back for a pod whose folder holds
// more than its limit (folder-usage.ts says how a folder is counted). The walks run in a worker
// thread: one of a pod's few hundred files took the server's event loop 15-30 ms here, beside the
// invocations it serves; a `du` per round held it as long, forking.
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { LimitedFolder } from './pod-disk.js';
import { MAX_ROUND_DELAY_MS, nextRoundDelayMs, type FolderReading } from './disk-watch-pace.js';
import type { UsageAnswer, UsageRequest } from './disk-watch-worker.js';

/** The processes of a pod: its first ones, and its memory cgroup's list of them when it has one. */
export interface PodProcessIds {
  rootPids: number[];
  procsFile?: string;
}

interface WatchedPod {
  folders: LimitedFolder[];
  processes: () => PodProcessIds;
  onOver: (folder: LimitedFolder) => void;
  /** Its folders' last measurements, by index, for the pace they grow at. */
  last?: { bytes: number; atMs: number }[];
}

const WORKER_MAIN = new URL('./disk-watch-worker.js', import.meta.url);

export class DiskWatch {
  readonly #watched = new Map<object, WatchedPod>();
  #timer: NodeJS.Timeout | undefined;
  #worker: Worker | undefined;

  /**
   * `onOver` runs once, for the first of `folders` found holding more than its limit. `pod` is only
   * the key; `processes` says which processes are the pod's (whose deleted files count too).
   */
  watch(pod: object, folders: LimitedFolder[], processes: () => PodProcessIds, onOver: (folder: LimitedFolder) => void): void {
    if (folders.length === 0) return;
    this.#watched.set(pod, { folders, processes, onOver });
    this.#timer ??= setTimeout(() => void this.#round(), MAX_ROUND_DELAY_MS).unref();
  }

  unwatch(pod: object): void {
    this.#watched.delete(pod);
  }

  async #round(): Promise<void> {
    const watched = [...this.#watched];
    if (watched.length === 0) {
      this.#timer = undefined;
      return;
    }
    const request: UsageRequest = {
      pods: watched.map(([, { folders, processes }]) => ({
        folders: folders.map(({ folder, mountPath, limitBytes }) => ({ folder, mountPath, limitBytes })),
        ...processes(),
      })),
    };
    const startMs = performance.now();
    const usage = await this.#measure(request).catch(() => undefined);
    const atMs = performance.now();
    const readings: FolderReading[] = [];
    for (const [index, [pod, watching]] of watched.entries()) {
      const bytes = watching.folders.map((_, i) => usage?.[index]?.[i] ?? 0);
      const over = watching.folders.find((folder, i) => bytes[i] > folder.limitBytes);
      if (!this.#watched.has(pod)) continue;
      if (over) {
        this.unwatch(pod);
        watching.onOver(over);
        continue;
      }
      if (usage) {
        readings.push(...watching.folders.map(({ limitBytes }, i) => ({ bytes: bytes[i], limitBytes, atMs, previous: watching.last?.[i] })));
        watching.last = bytes.map((b) => ({ bytes: b, atMs }));
      }
    }
    const delay = nextRoundDelayMs(readings, atMs - startMs);
    this.#timer = this.#watched.size > 0 ? setTimeout(() => void this.#round(), delay).unref() : undefined;
  }

  /** In the worker, which stays (idle, unreferenced) once made: one per cold pod would cost a thread's start beside each. */
  #measure(request: UsageRequest): Promise<UsageAnswer> {
    const worker = (this.#worker ??= new Worker(WORKER_MAIN));
    worker.unref();
    return new Promise((resolve, reject) => {
      const measured = (usage: UsageAnswer) => {
        worker.off('error', failed);
        resolve(usage);
      };
      const failed = (error: Error) => {
        worker.off('message', measured);
        if (this.#worker === worker) this.#worker = undefined;
        reject(error);
      };
      worker.once('message', measured);
      worker.once('error', failed);
      worker.postMessage(request);
    });
  }
}
