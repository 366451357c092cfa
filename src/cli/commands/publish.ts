import type { Command } from 'commander';
import { ApiClient, sleep } from '../api-client.js';
import { packProject } from '../pack.js';

interface BuildView {
  id: string;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  endedAt?: string;
  builtFunctions?: { id: string; name: string; createdVersion: string }[];
  cause?: { code: string; message?: string };
}

interface BuildLogs {
  logs: { level: string; message: string; timestamp: string }[];
}

/** Lines of an error shown on failure (npm's and esbuild's put the cause first). */
const ERROR_LINES_SHOWN = 20;
/** Build warnings shown (npm's deprecation notices can be many); the rest are in the build log. */
const WARNINGS_SHOWN = 20;

export function registerPublishCommand(program: Command): void {
  program
    .command('publish <entry>')
    .description('Upload the project of <entry> and deploy every Function defined in it and the files it imports')
    .option('--api-url <url>', 'the browserfn API (env BROWSERFN_API_URL, default http://127.0.0.1:3000)')
    .option('--poll-ms <ms>', 'how often to check the build', '1000')
    .action(async (entry: string, opts: { apiUrl?: string; pollMs: string }) => {
      const client = new ApiClient({ apiUrl: opts.apiUrl });
      const packed = await packProject(entry);
      out(`Packed ${packed.files.length} files from ${packed.root} (${(packed.archive.length / 1024).toFixed(1)} KiB), entry ${packed.entrypoint}`);

      const form = new FormData();
      form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
      form.append('archive', new Blob([new Uint8Array(packed.archive)], { type: 'application/gzip' }), 'archive.tar.gz');
      out(`Uploading to ${client.baseUrl}/v1/functions/builds`);
      let build = await client.request<BuildView>('POST', '/v1/functions/builds', form);
      out(`Build ${build.id} ${build.status}`);

      let last = build.status;
      while (build.status === 'PENDING' || build.status === 'RUNNING') {
        await sleep(Number(opts.pollMs));
        build = await client.request<BuildView>('GET', `/v1/functions/builds/${build.id}`);
        if (build.status !== last) out(`Build ${build.id} ${build.status}`);
        last = build.status;
      }
      const { logs } = await client.request<BuildLogs>('GET', `/v1/functions/builds/${build.id}/logs`).catch((): BuildLogs => ({ logs: [] }));
      for (const line of buildSummary(logs, build.endedAt)) out(line);
      for (const line of buildWarnings(logs, build.id)) process.stderr.write(line + '\n');
      if (build.status === 'FAILED') {
        const [headline = '', ...detail] = (build.cause?.message ?? '').split('\n');
        process.stderr.write(`Build failed: ${build.cause?.code ?? 'UNKNOWN'}: ${headline}\n`);
        for (const line of detail.slice(0, ERROR_LINES_SHOWN)) process.stderr.write(`  | ${line}\n`);
        if (detail.length > ERROR_LINES_SHOWN) process.stderr.write(`  | … ${detail.length - ERROR_LINES_SHOWN} more lines in the build log (GET /v1/functions/builds/${build.id}/logs)\n`);
        process.exitCode = 1;
        return;
      }
      out(`Built or updated ${build.builtFunctions?.length ?? 0} Function(s):`);
      for (const fn of build.builtFunctions ?? []) out(`  ${fn.name}  id=${fn.id}  version=${fn.createdVersion}`);
    });
}

const out = (line: string) => process.stdout.write(line + '\n');

const STEP_LINE = /^Step (\w+): (\d+\.\d+) s( \(failed\))?$/;

/**
 * The artifact's size and each step's time, read back from the build log (the build agent logs
 * them; the Build object keeps its wire shape): "upload" sends the artifact to the control plane;
 * "store" is what followed the agent's last line:
 * its report and the Functions' versions stored.
 */
export function buildSummary(logs: BuildLogs['logs'], endedAt: string | undefined): string[] {
  const steps: string[] = [];
  for (const entry of logs) {
    const step = STEP_LINE.exec(entry.message);
    if (step) steps.push(`${step[1]} ${step[2]} s${step[3] ? ' (failed)' : ''}`);
  }
  const last = logs[logs.length - 1];
  if (steps.length > 0 && last && endedAt) {
    const storeMs = Date.parse(endedAt) - Date.parse(last.timestamp);
    if (storeMs >= 0) steps.push(`store ${(storeMs / 1000).toFixed(2)} s`);
  }
  const lines = logs.filter((entry) => entry.message.startsWith('Artifact: ')).map((entry) => entry.message);
  if (steps.length > 0) lines.push(`Steps: ${steps.join(', ')}`);
  return lines;
}

/**
 * The build's warnings (a pinned browser package the runtime replaces, `.npmrc` keys left out, npm's
 * own notices), which a build that completes would otherwise keep to its log.
 */
export function buildWarnings(logs: BuildLogs['logs'], buildId: string): string[] {
  const warnings = logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message.trimEnd());
  const lines = warnings.slice(0, WARNINGS_SHOWN).map((message) => `Warning: ${message.replaceAll('\n', '\n  ')}`);
  if (warnings.length > WARNINGS_SHOWN) lines.push(`… ${warnings.length - WARNINGS_SHOWN} more warnings in the build log (GET /v1/functions/builds/${buildId}/logs)`);
  return lines;
}
