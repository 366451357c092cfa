// Measures the limited folders of running pods every few seconds, as the kubelet's eviction manager
// does, and calls back for a pod whose folder holds more than its limit (folder-usage.ts says how a
// folder is counted). The walks run in a worker thread: one of a pod's few hundred files took the
// server's event loop 15-30 ms here, beside the invocations it serves; a `du` per round held it
// as long, forking.
import { Worker } from 'node:worker_threads';
import type { LimitedFolder } from './pod-disk.js';
import type { UsageRequest } from './disk-watch-worker.js';

/** Between the end of one round of measurements and the start of the next. */
const POLL_MS = 2000;
const WORKER_MAIN = new URL('./disk-watch-worker.js', import.meta.url);

export class DiskWatch {
  readonly #watched = new Map<object, { folders: LimitedFolder[]; onOver: (folder: LimitedFolder) => void }>();
  #timer: NodeJS.Timeout | undefined;
  #worker: Worker | undefined;

  /** `onOver` runs once, for the first of `folders` found holding more than its limit. `pod` is only the key. */
  watch(pod: object, folders: LimitedFolder[], onOver: (folder: LimitedFolder) => void): void {
    if (folders.length === 0) return;
    this.#watched.set(pod, { folders, onOver });
    this.#timer ??= setTimeout(() => void this.#round(), POLL_MS).unref();
  }

  unwatch(pod: object): void {
    this.#watched.delete(pod);
  }

  async #round(): Promise<void> {
    const watched = [...this.#watched];
    const folders = watched.flatMap(([, { folders }]) => folders);
    const usage = await this.#measure(folders).catch(() => undefined);
    let index = 0;
    for (const [pod, { folders: podFolders, onOver }] of watched) {
      const over = podFolders.find((folder, i) => (usage?.[index + i] ?? 0) > folder.limitBytes);
      index += podFolders.length;
      if (!over || !this.#watched.has(pod)) continue;
      this.unwatch(pod);
      onOver(over);
    }
    if (this.#watched.size > 0) {
      this.#timer = setTimeout(() => void this.#round(), POLL_MS).unref();
    } else {
      this.#timer = undefined;
      void this.#worker?.terminate();
      this.#worker = undefined;
    }
  }

  #measure(folders: LimitedFolder[]): Promise<number[]> {
    const worker = (this.#worker ??= new Worker(WORKER_MAIN));
    worker.unref();
    return new Promise((resolve, reject) => {
      const measured = (usage: number[]) => {
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
      worker.postMessage({ folders: folders.map(({ folder, limitBytes }) => ({ folder, limitBytes })) } satisfies UsageRequest);
    });
  }
}
