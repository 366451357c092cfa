// How the pod launcher hands a sandbox made ahead to the pod it was claimed for, within its one
// process: the launcher imports the agent's entry before any pod exists (node-agent/spare-sandboxes.ts),
// and the entry prepares what needs no pod (the code loader, the runtime API), says so, and waits
// here. The launcher then swaps in the pod's environment, folder and arguments and settles the
// handover. The agent runs from its bundle and the launcher from its modules, so no module is
// shared: the process's global symbol registry is.
const HANDOVER = Symbol.for('browserfn.podHandover');

export interface PodHandover {
  /** Settles once the process has the pod's environment, folder and arguments. */
  readonly handed: Promise<void>;
  /** The agent has prepared what needs no pod: the sandbox may be handed out. */
  prepared(): void;
}

type WithHandover = typeof globalThis & { [HANDOVER]?: PodHandover };

/** The launcher offers it before importing the agent. */
export function offerPodHandover(handover: PodHandover): void {
  (globalThis as WithHandover)[HANDOVER] = handover;
}

/** Set in a sandbox made ahead; undefined: the process had its pod's environment from the start. */
export function podHandover(): PodHandover | undefined {
  return (globalThis as WithHandover)[HANDOVER];
}
