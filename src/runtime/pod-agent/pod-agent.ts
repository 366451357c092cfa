// The browser pod agent: runs exactly one invocation and reports it. Exit code 0 when the report
// was delivered (whatever the invocation's outcome), 1 when it could not be or SIGTERM came before
// the outcome (nothing is reported then), 2 on bad settings,
// 3 when a pool member ended without being claimed (its browser died, or it was told to stop).
import { createLogger } from '../../config/logger.js';
import type { BrowserProvider } from '../chromium/browser-provider.js';
import { SidecarChromiumProvider } from '../chromium/sidecar-chromium-provider.js';
import { readAgentSettings, type AgentSettings } from '../agent-common/agent-settings.js';
import { runAndReport } from '../agent-common/agent-run.js';
import { ControlPlaneClient } from '../agent-common/control-plane-client.js';
import { InvocationRun } from './invocation-run.js';
import { waitForAssignment } from './pool-member.js';
import { localBrowsers, type HeadStart } from './head-start.js';
import { PodEnv } from '../../schemas/pod-env.js';

export interface PodAgentDependencies {
  /** Where browsers come from; a new local Chromium per invocation by default. */
  browserProvider?: BrowserProvider;
  /** What the entry started before the agent's code loaded (a cold pod's). */
  headStart?: HeadStart;
}

export async function runPodAgent(env: NodeJS.ProcessEnv, dependencies: PodAgentDependencies = {}): Promise<number> {
  const log = createLogger(env.BROWSERFN_LOG_LEVEL ?? 'info').child({ component: 'pod-agent', pod: env[PodEnv.podName] });
  let settings: AgentSettings;
  try {
    settings = readAgentSettings(env);
  } catch (error) {
    log.error((error as Error).message);
    return 2;
  }
  const control = new ControlPlaneClient(settings);
  const browsers =
    dependencies.browserProvider ??
    (settings.sidecarCdpPort ? new SidecarChromiumProvider({ port: settings.sidecarCdpPort }) : localBrowsers(settings));
  if (!settings.poolMember) {
    const run = new InvocationRun(settings, env, browsers, control, log, { headStart: dependencies.headStart });
    return runAndReport(run, (report) => control.postReport(report), log, (report) => ({ phase: report.phase }));
  }
  let assignment: unknown;
  const run = new InvocationRun(settings, env, browsers, control, log, { inputSource: async () => assignment });
  const stop = new AbortController();
  const onSigterm = () => stop.abort();
  process.once('SIGTERM', onSigterm);
  const wait = await waitForAssignment(run, control, log, stop.signal);
  process.off('SIGTERM', onSigterm);
  if (!wait.assigned) {
    log.warn({ why: wait.why }, 'pool member ends unclaimed');
    await run.discard();
    return 3;
  }
  assignment = wait.input;
  return runAndReport(run, (report) => control.postReport(report), log, (report) => ({ phase: report.phase }));
}
