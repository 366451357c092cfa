// The pod's browser, launched before the agent has loaded the rest of its code. Only a browser the
// agent launches itself can start early: a sidecar starts on its own, and bad settings launch nothing
// (the agent then reports them).
import { readAgentSettings, type AgentSettings } from '../agent-common/agent-settings.js';
import type { BrowserProvider } from '../chromium/browser-provider.js';
import { HeadStartProvider } from '../chromium/head-start-provider.js';
import { LocalChromiumProvider } from '../chromium/local-chromium-provider.js';
import { podLayout } from '../sandbox/pod-layout.js';

export function launchBrowserAhead(env: NodeJS.ProcessEnv): BrowserProvider | undefined {
  let settings: AgentSettings;
  try {
    settings = readAgentSettings(env);
  } catch {
    return undefined;
  }
  if (settings.sidecarCdpPort) return undefined;
  const local = new LocalChromiumProvider({ executablePath: settings.chromiumPath, sandbox: settings.chromiumSandbox });
  return new HeadStartProvider(local, { workDir: podLayout(settings.podDir).browserDir, viewport: settings.viewport });
}
