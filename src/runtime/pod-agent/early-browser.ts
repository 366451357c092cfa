// The pod's local Chromium, started the moment the agent process does: loading the agent's own
// modules takes about 200 ms, which a cold pod's browser start no longer waits for.
import { readAgentSettings, type AgentSettings } from '../agent-common/agent-settings.js';
import type { BrowserProvider } from '../chromium/browser-provider.js';
import { LocalChromiumProvider } from '../chromium/local-chromium-provider.js';
import { PrelaunchedBrowser } from '../chromium/prelaunched-browser.js';
import { podLayout } from '../sandbox/pod-layout.js';

/** None with a sidecar browser (it starts as a container of its own) or bad settings (the agent says what is wrong). */
export function startBrowserEarly(env: NodeJS.ProcessEnv): BrowserProvider | undefined {
  let settings: AgentSettings;
  try {
    settings = readAgentSettings(env);
  } catch {
    return undefined;
  }
  if (settings.sidecarCdpPort) return undefined;
  const local = new LocalChromiumProvider({ executablePath: settings.chromiumPath, sandbox: settings.chromiumSandbox });
  return new PrelaunchedBrowser(local, { workDir: podLayout(settings.podDir).browserDir, viewport: settings.viewport });
}
