import type { Command } from 'commander';
import { ApiClient, sleep } from '../api-client.js';
import { functionIdOf } from '../function-ref.js';

interface InvocationView {
  id: string;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  sessionId: string;
  results?: unknown;
  cause?: { code: string; message?: string };
}

export function registerInvokeCommand(program: Command): void {
  program
    .command('invoke <function>')
    .description('Invoke a Function (by ID or name), wait for it, and print its results and logs')
    .option('--params <json>', 'params passed to the handler, as JSON', '{}')
    .option('--session <json>', 'sessionCreateParams overrides, as JSON')
    .option('--api-url <url>', 'the browserfn API (env BROWSERFN_API_URL, default http://127.0.0.1:3000)')
    .option('--poll-ms <ms>', 'how often to check the invocation', '500')
    .option('--cancel-on-interrupt', 'on Ctrl-C (SIGINT), cancel the invocation before exiting')
    .action(async (functionRef: string, opts: { params: string; session?: string; apiUrl?: string; pollMs: string; cancelOnInterrupt?: boolean }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const functionId = await functionIdOf(client, functionRef);
      const body: Record<string, unknown> = { params: parseJson(opts.params, '--params') };
      if (opts.session) body.sessionCreateParams = parseJson(opts.session, '--session');
      const created = client.request<InvocationView>('POST', `/v1/functions/${functionId}/invoke`, body);
      // Set before the answer: a Ctrl-C while the invoke is under way cancels what it creates.
      if (opts.cancelOnInterrupt) cancelOnInterrupt(client, created.then((inv) => inv.id));
      let inv = await created;
      process.stderr.write(`Invocation ${inv.id} (session ${inv.sessionId}) ${inv.status}\n`);
      while (inv.status === 'PENDING' || inv.status === 'RUNNING') {
        await sleep(Number(opts.pollMs));
        inv = await client.request<InvocationView>('GET', `/v1/functions/invocations/${inv.id}`);
      }
      const { logs } = await client.request<{ logs: { level?: string; message: string; timestamp: string }[] }>('GET', `/v1/functions/invocations/${inv.id}/logs`);
      for (const entry of logs) process.stderr.write(`${entry.timestamp} ${(entry.level ?? 'info').toUpperCase().padEnd(5)} ${entry.message}\n`);
      if (inv.status === 'FAILED') {
        process.stderr.write(`Invocation failed: ${inv.cause?.code}: ${inv.cause?.message ?? ''}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(JSON.stringify(inv.results ?? null, null, 2) + '\n');
    });
}

/**
 * The first Ctrl-C cancels the invocation (once its creation has been answered) and exits with 130
 * once it has; a second one exits at once.
 */
function cancelOnInterrupt(client: ApiClient, invocationId: Promise<string>): void {
  invocationId.catch(() => undefined);
  process.once('SIGINT', () => {
    process.once('SIGINT', () => process.exit(130));
    process.stderr.write('Cancelling the invocation…\n');
    let id = '';
    invocationId
      .then((created) => {
        id = created;
        return client.request<InvocationView>('POST', `/v1/functions/invocations/${id}/cancel`);
      })
      .then(
        (inv) => {
          process.stderr.write(`Invocation ${id} ${inv.status}${inv.cause ? `: ${inv.cause.code}` : ''}\n`);
          process.exit(130);
        },
        (err: Error) => {
          // No ID: the invoke itself failed, so there is nothing to cancel.
          process.stderr.write(id ? `Could not cancel invocation ${id}: ${err.message}\n` : `The invoke failed: ${err.message}\n`);
          process.exit(130);
        },
      );
  });
}

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${flag} must be valid JSON`);
  }
}
