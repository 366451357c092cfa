// The build pod agent: runs exactly one build and reports it. Exit code 0 when the report was
// delivered (whatever the build's outcome), 1 when it could not be, 2 on bad settings.
import { createLogger } from '../config/logger.js';
import { readAgentSettings, type AgentSettings } from '../runtime/agent-common/agent-settings.js';
import { runAndReport } from '../runtime/agent-common/agent-run.js';
import { ControlPlaneClient } from '../runtime/agent-common/control-plane-client.js';
import { buildLimits, type BuildLimits } from './build-limits.js';
import { BuildRun } from './build-run.js';
import { PodEnv } from '../schemas/pod-env.js';

export async function runBuildAgent(env: NodeJS.ProcessEnv): Promise<number> {
  const log = createLogger(env.BROWSERFN_LOG_LEVEL ?? 'info').child({ component: 'build-agent', pod: env[PodEnv.podName] });
  let settings: AgentSettings;
  let limits: BuildLimits;
  try {
    settings = readAgentSettings(env);
    limits = buildLimits(env);
  } catch (error) {
    log.error((error as Error).message);
    return 2;
  }
  const control = new ControlPlaneClient(settings);
  const run = new BuildRun(settings, env, limits, control, log);
  return runAndReport(run, (report) => control.postReport(report), log, (report) => ({
    phase: report.phase,
    cause: report.cause?.code,
    functions: report.functions?.map((fn) => fn.name),
  }));
}
