// The browserfn command line's program: one file per command (the agents' commands are main.ts's).
import { Command } from 'commander';
import { registerServeCommand } from './commands/serve.js';
import { registerPublishCommand } from './commands/publish.js';
import { registerInvokeCommand } from './commands/invoke.js';
import { registerDevCommand } from './commands/dev.js';
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

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`browserfn: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
