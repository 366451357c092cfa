// The environment variables of a pod's agent that the control plane and the node agent write and
// the agents read: one name for both sides. Other settings an operator gives (the log level, npm's)
// are the agents' own.
export const PodEnv = {
  controlUrl: 'BROWSERFN_CONTROL_URL',
  namespace: 'BROWSERFN_POD_NAMESPACE',
  podName: 'BROWSERFN_POD_NAME',
  podToken: 'BROWSERFN_POD_TOKEN',
  /** Writable, empty, the pod's own. */
  podDir: 'BROWSERFN_POD_DIR',
  /** The browser window size (WIDTHxHEIGHT), so Chromium starts before the invocation is known. */
  viewport: 'BROWSERFN_VIEWPORT',
  /**
   * The session takes proxies: the agent's session proxy listens on this port of the pod's loopback
   * (0: any free one, for a Chromium the agent launches itself) and Chromium goes through it.
   */
  proxyPort: 'BROWSERFN_PROXY_PORT',
  /** Chromium runs as a sidecar container listening on this port; unset: the agent launches it. */
  cdpPort: 'BROWSERFN_CDP_PORT',
  /** The sha256 the agent checks its artifact against, whoever hands it over. */
  artifactSha256: 'BROWSERFN_ARTIFACT_SHA256',
  /** The artifact, verified, as a file the node agent's cache hands the pod. */
  artifactFile: 'BROWSERFN_ARTIFACT_FILE',
  /** `1`: a warm pool member, which waits for an assignment instead of fetching its input at once. */
  poolMember: 'BROWSERFN_POOL_MEMBER',
  /** The runtime packages a member's code loader loads before it is claimed (comma separated; unset: all). */
  preload: 'BROWSERFN_PRELOAD',
  /** The Chromium the pod runs: the operator's choice of build (src/config/chromium-build.ts). */
  chromiumPath: 'BROWSERFN_CHROMIUM_PATH',
  /** `1`: Chromium keeps its own sandbox (the node agent's pod sandbox allows it). */
  chromiumSandbox: 'BROWSERFN_CHROMIUM_SANDBOX',
  /** The address a pod on the host's network binds to, as a cluster pod has an IP of its own. */
  host: 'BROWSERFN_HOST',
  /** A build pod's npm cache, kept by the node agent between builds. */
  npmCache: 'BROWSERFN_NPM_CACHE',
  /** `1`: the agent also logs the handler's console entries as they come (`browserfn dev` shows them live). */
  echoConsole: 'BROWSERFN_ECHO_CONSOLE',
} as const;
