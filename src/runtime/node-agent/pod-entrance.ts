// A sandboxed pod's own way to the control plane (src/server/pod-entrances.ts makes them).

export interface PodEntrance {
  /** The host loopback port the pod's control-plane port is forwarded to. */
  port: number;
  close(): void;
}

export interface PodEntrances {
  /** The control plane's port on the host's loopback, as pods are told it. */
  readonly port: number;
  openFor(): Promise<PodEntrance>;
}
