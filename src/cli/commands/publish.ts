import type { Command } from 'commander';
import { ApiClient, sleep } from '../api-client.js';
import { packProject } from '../pack.js';

interface BuildView {
  id: string;
  status: 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';
  builtFunctions?: { id: string; name: string; createdVersion: string }[];
  cause?: { code: string; message?: string };
}

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
      if (build.status === 'FAILED') {
        const logs = await client.request<{ logs: { message: string }[] }>('GET', `/v1/functions/builds/${build.id}/logs`).catch(() => ({ logs: [] }));
        for (const line of logs.logs.slice(-20)) process.stderr.write(`  | ${line.message}\n`);
        process.stderr.write(`Build failed: ${build.cause?.code ?? 'UNKNOWN'}: ${build.cause?.message ?? ''}\n`);
        process.exitCode = 1;
        return;
      }
      out(`Built or updated ${build.builtFunctions?.length ?? 0} Function(s):`);
      for (const fn of build.builtFunctions ?? []) out(`  ${fn.name}  id=${fn.id}  version=${fn.createdVersion}`);
    });
}

const out = (line: string) => process.stdout.write(line + '\n');
