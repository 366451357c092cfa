// `browserfn secrets …`: project secrets from the command line. `set` seals the value on this
// machine with the project's public key, so it never travels or gets logged in the clear.
import type { Command } from 'commander';
import { functionIdOf } from '../function-ref.js';
import { isUuid } from '../../schemas/uuid.js';
import { ApiClient } from '../api-client.js';
import { boundTo, sealValue } from '../../secrets/hpke.js';

interface SecretView {
  id: string;
  secretKey: string;
}

interface SecretsPage {
  data: SecretView[];
  nextCursor: string | null;
}

interface Keypair {
  id: string;
  publicKey: string;
  projectId: string;
}

const API_URL_HELP = 'the browserfn API (env BROWSERFN_API_URL, default http://127.0.0.1:3000)';

export function registerSecretsCommands(program: Command): void {
  const secrets = program
    .command('secrets')
    .description('Project secrets: values sealed on this machine, attached to Functions, read by handlers as ctx.secrets');

  secrets
    .command('set <name>')
    .description('Create the secret NAME, or replace its value; reads the value from stdin (one trailing newline is dropped)')
    .option('--api-url <url>', API_URL_HELP)
    .action(async (name: string, opts: { apiUrl?: string }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const value = await readValueFromStdin();
      const sealed = await sealFor(client, name, value);
      const existing = await findByName(client, name);
      let result: SecretView;
      if (existing) {
        result = await client.request<SecretView>('PATCH', `/v1/secrets/${existing.id}`, sealed);
      } else {
        try {
          result = await client.request<SecretView>('POST', '/v1/secrets', { secretKey: name, ...sealed });
        } catch (err) {
          // Created by someone else meanwhile: replace its value instead.
          const raced = await findByName(client, name);
          if (!raced) throw err;
          result = await client.request<SecretView>('PATCH', `/v1/secrets/${raced.id}`, sealed);
        }
      }
      process.stderr.write(`${existing ? 'Updated' : 'Created'} secret ${result.secretKey} (${result.id})\n`);
      process.stdout.write(JSON.stringify(result) + '\n');
    });

  secrets
    .command('list')
    .description('List secrets as "ID<TAB>NAME" lines (never values)')
    .option('--function <function>', 'only the secrets attached to this Function (ID or name)')
    .option('--api-url <url>', API_URL_HELP)
    .action(async (opts: { function?: string; apiUrl?: string }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const path = opts.function ? `/v1/functions/${encodeURIComponent(await functionIdOf(client, opts.function))}/secrets` : '/v1/secrets';
      for await (const secret of allPages(client, path)) process.stdout.write(`${secret.id}\t${secret.secretKey}\n`);
    });

  secrets
    .command('attach <function> <secret>')
    .description("Attach a secret to a Function (each by ID or name); its next invocations receive the value in ctx.secrets")
    .option('--api-url <url>', API_URL_HELP)
    .action(async (functionRef: string, secretRef: string, opts: { apiUrl?: string }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const functionId = await functionIdOf(client, functionRef);
      const secretId = await secretIdOf(client, secretRef);
      await client.request('POST', `/v1/functions/${encodeURIComponent(functionId)}/secrets`, { secretId });
      process.stderr.write(`Attached secret ${secretId} to Function ${functionId}\n`);
    });

  secrets
    .command('detach <function> <secret>')
    .description('Detach a secret from a Function (each by ID or name), from its next invocation on')
    .option('--api-url <url>', API_URL_HELP)
    .action(async (functionRef: string, secretRef: string, opts: { apiUrl?: string }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const functionId = await functionIdOf(client, functionRef);
      const secretId = await secretIdOf(client, secretRef);
      await client.request('DELETE', `/v1/functions/${encodeURIComponent(functionId)}/secrets/${encodeURIComponent(secretId)}`);
      process.stderr.write(`Detached secret ${secretId} from Function ${functionId}\n`);
    });

  secrets
    .command('delete <secretId>')
    .description('Delete a secret (it is detached from every Function)')
    .option('--api-url <url>', API_URL_HELP)
    .action(async (secretId: string, opts: { apiUrl?: string }) => {
      await new ApiClient({ apiUrl: opts.apiUrl }).request('DELETE', `/v1/secrets/${encodeURIComponent(secretId)}`);
      process.stderr.write(`Deleted secret ${secretId}\n`);
    });
}

async function readValueFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Type the secret value, then press Ctrl-D:\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (value === '') throw new Error('No secret value on stdin: pipe it in, e.g. printf %s "$TOKEN" | browserfn secrets set NAME');
  return value;
}

/** The sealed-value properties of the bound form: HPKE info and aad tie the value to project and name. */
async function sealFor(client: ApiClient, name: string, value: string): Promise<Record<string, string>> {
  const keypair = await client.request<Keypair>('GET', '/v1/secrets/keypair');
  const { enc, ciphertext } = await sealValue(
    new Uint8Array(Buffer.from(keypair.publicKey, 'base64')),
    new TextEncoder().encode(value),
    boundTo(keypair.projectId, name),
  );
  return { keypairId: keypair.id, encapsulatedKey: Buffer.from(enc).toString('base64'), sealedValue: Buffer.from(ciphertext).toString('base64') };
}

/** A secret given on the command line by its ID or by its name (what `secrets set` took). */
async function secretIdOf(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const found = await findByName(client, ref);
  if (!found) throw new Error(`No secret named "${ref}" in this project (\`browserfn secrets list\` shows them)`);
  return found.id;
}

async function findByName(client: ApiClient, name: string): Promise<SecretView | undefined> {
  for await (const secret of allPages(client, '/v1/secrets')) if (secret.secretKey === name) return secret;
  return undefined;
}

async function* allPages(client: ApiClient, path: string): AsyncGenerator<SecretView> {
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=1000&cursor=${encodeURIComponent(cursor)}` : '?limit=1000';
    const page: SecretsPage = await client.request<SecretsPage>('GET', path + query);
    yield* page.data;
    cursor = page.nextCursor;
  } while (cursor);
}
