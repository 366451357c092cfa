// How the pod agent gets a browser. Today every invocation launches its own Chromium; a pool can
// implement the same interface by handing out pre-started browsers.

export interface BrowserRequest {
  /** A private, writable directory for this browser (profile, crash dumps). */
  workDir: string;
  /** The pages' size, from sessionConfig.browserSettings.viewport. */
  viewport?: { width?: number; height?: number };
  /** The proxy every request of the browser goes through (`http://127.0.0.1:port`, the pod's session proxy). */
  proxyServer?: string;
  /** Aborting gives up the launch (and kills what was started). */
  signal?: AbortSignal;
}

export interface LeasedBrowser {
  /** Browser-level CDP WebSocket URL (ws://127.0.0.1:port/devtools/browser/<id>). */
  readonly wsEndpoint: string;
  /** The browser's main process, when it is a local process. */
  readonly pid?: number;
  /** Resolves, saying how, when a local browser process ends (also after release). */
  readonly exited?: Promise<string>;
  /**
   * Stops every process of a local browser where it is (SIGSTOP), at once: nothing of it runs any
   * more, and none of its exit's work is done yet. `release()` kills it later.
   */
  freeze?(): void;
  /** Ends the lease: the browser and everything it started are gone when this resolves. */
  release(): Promise<void>;
}

export interface BrowserProvider {
  acquire(request: BrowserRequest): Promise<LeasedBrowser>;
}
