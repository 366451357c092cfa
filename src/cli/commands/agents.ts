import type { Command } from 'commander';

/**
 * The pod entry points, started by the node agent (or a kubelet) with their settings in the
 * environment. Each loads only its own code, so a pod starts without the server's modules.
 */
export function registerAgentCommands(program: Command): void {
  program
    .command('pod-agent', { hidden: true })
    .description('Run one invocation in a browser pod')
    .action(async () => {
      const { runPodAgent } = await import('../../runtime/pod-agent/pod-agent.js');
      process.exit(await runPodAgent(process.env));
    });
  program
    .command('build-agent', { hidden: true })
    .description('Run one build in a build pod')
    .action(async () => {
      const { runBuildAgent } = await import('../../build/build-agent.js');
      process.exit(await runBuildAgent(process.env));
    });
}
