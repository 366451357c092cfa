// Looks at the memory cgroups of running pods twenty times a second and ends a pod that ran out of
// memory as a whole (v1 has no group kill of its own: memory-cgroups.ts). cgroup v1 files tell no
// watcher when they change, so this polls; it costs one small read per running pod.
import type { PodMemoryCgroup } from './memory-cgroups.js';

/** A read costs about 8 µs; the sooner the better, as the other processes of a pod at its limit may fail meanwhile (ENOMEM). */
const POLL_MS = 50;

export class OomWatch {
  readonly #watched = new Map<PodMemoryCgroup, () => void>();
  #timer: NodeJS.Timeout | undefined;

  /** `onOutOfMemory` runs once, after every process of the pod was sent SIGKILL. */
  watch(cgroup: PodMemoryCgroup, onOutOfMemory: () => void): void {
    this.#watched.set(cgroup, onOutOfMemory);
    this.#timer ??= setInterval(() => this.#check(), POLL_MS).unref();
  }

  unwatch(cgroup: PodMemoryCgroup): void {
    this.#watched.delete(cgroup);
    if (this.#watched.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #check(): void {
    for (const [cgroup, onOutOfMemory] of this.#watched) {
      if (!cgroup.outOfMemory()) continue;
      this.unwatch(cgroup);
      cgroup.killAll();
      onOutOfMemory();
    }
  }
}
