#!/usr/bin/env node
// The browserfn command line: one entry point, one file per command.
import { Command } from 'commander';
import { registerServeCommand } from './commands/serve.js';
import { registerPublishCommand } from './commands/publish.js';
import { registerInvokeCommand } from './commands/invoke.js';
import { registerDevCommand } from './commands/dev.js';
import { registerAgentCommands } from './commands/agents.js';
import { registerSecretsCommands } from './commands/secrets.js';
import { packageVersion } from './version.js';

const program = new Command('browserfn')
  .description('Browser Functions and page fetch: serve, publish, invoke')
  .version(packageVersion())
  .showHelpAfterError()
  .enablePositionalOptions();

registerServeCommand(program);
registerPublishCommand(program);
registerInvokeCommand(program);
registerDevCommand(program);
registerSecretsCommands(program);
registerAgentCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`browserfn: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
