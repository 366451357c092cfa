import type { Command } from 'commander';
import { pathToFileURL } from 'node:url';

/**
 * The pod entry points, started by the node agent (or a kubelet) with their settings in the
 * environment. Each loads only its own code, so a pod starts without the server's modules.
 */
export function registerAgentCommands(program: Command): void {
  program
    .command('pod-agent', { hidden: true })
    .description('Run one invocation in a browser pod')
    .action(async () => {
      // The script the node agent runs for it (the bundle of `make build` while fresh): it exits by itself.
      const { agentMains } = await import('../../runtime/node-agent/agent-mains.js');
      await import(pathToFileURL(agentMains()['pod-agent']).href);
    });
  program
    .command('build-agent', { hidden: true })
    .description('Run one build in a build pod')
    .action(async () => {
      const { runBuildAgent } = await import('../../build/build-agent.js');
      process.exit(await runBuildAgent(process.env));
    });
}
