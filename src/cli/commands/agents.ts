import type { Command } from 'commander';
import { runPodAgent } from '../../runtime/pod-agent/agent.js';
import { runBuildAgent } from '../../build/agent.js';

/** The pod entry points, started by the node agent (or a kubelet) with their settings in the environment. */
export function registerAgentCommands(program: Command): void {
  program
    .command('pod-agent', { hidden: true })
    .description('Run one invocation in a browser pod')
    .action(async () => process.exit(await runPodAgent(process.env)));
  program
    .command('build-agent', { hidden: true })
    .description('Run one build in a build pod')
    .action(async () => process.exit(await runBuildAgent(process.env)));
}
