// Publishes a project through the HTTP API (as the CLI does) and waits for the build to end.
import { join } from 'node:path';
import { packProject } from '../../src/cli/pack.js';
import { waitFor, type TestService } from './service.js';

export interface BuildResult {
  id: string;
  status: string;
  builtFunctions?: { id: string; name: string; createdVersion: string }[];
  cause?: { code: string; message?: string };
}

/** `headers` carry another project's key, when not the service's default one. */
export async function publish(svc: TestService, root: string, entry = 'index.ts', headers: Record<string, string> = {}): Promise<BuildResult> {
  const packed = await packProject(join(root, entry));
  const form = new FormData();
  form.append('metadata', JSON.stringify({ entrypoint: packed.entrypoint }));
  form.append('archive', new Blob([new Uint8Array(packed.archive)], { type: 'application/gzip' }), 'archive.tar.gz');
  const created = await svc.request<BuildResult>('POST', '/v1/functions/builds', form, headers);
  if (created.status !== 201) throw new Error(`upload failed: ${created.status} ${JSON.stringify(created.body)}`);
  // A build that never ends is reported with what it last said (its status and build log are the first clues).
  let last: unknown;
  try {
    return await waitFor(`build ${created.body.id}`, async () => {
      const { body } = await svc.request<BuildResult>('GET', `/v1/functions/builds/${created.body.id}`, undefined, headers);
      last = body;
      return body.status === 'COMPLETED' || body.status === 'FAILED' ? body : undefined;
    }, 240_000, 200);
  } catch (error) {
    const logs = await svc.request('GET', `/v1/functions/builds/${created.body.id}/logs`, undefined, headers).catch(() => undefined);
    // With a captured service log, what the node agent and the build pod said last (their output at debug).
    const serviceLines = svc.logLines.filter((line) => /build/i.test(line)).slice(-30).map((line) => line.slice(0, 400));
    const service = serviceLines.length > 0 ? `; the service's last lines about builds:\n${serviceLines.join('\n')}` : '';
    throw new Error(`${(error as Error).message}; it last read ${JSON.stringify(last)}; its log: ${JSON.stringify(logs?.body).slice(-2000)}${service}`);
  }
}

export interface InvocationResult {
  id: string;
  status: string;
  sessionId: string;
  createdAt: string;
  startedAt?: string;
  results?: unknown;
  cause?: { code: string; message?: string };
}

export async function invokeAndWait(svc: TestService, functionId: string, body: unknown, timeoutMs = 120_000): Promise<InvocationResult> {
  const created = await svc.request<InvocationResult>('POST', `/v1/functions/${functionId}/invoke`, body);
  if (created.status !== 202) throw new Error(`invoke failed: ${created.status} ${JSON.stringify(created.body)}`);
  return waitInvocation(svc, created.body.id, timeoutMs);
}

export function waitInvocation(svc: TestService, id: string, timeoutMs = 120_000, headers: Record<string, string> = {}): Promise<InvocationResult> {
  return waitFor(`invocation ${id}`, async () => {
    const { body } = await svc.request<InvocationResult>('GET', `/v1/functions/invocations/${id}`, undefined, headers);
    return body.status === 'COMPLETED' || body.status === 'FAILED' ? body : undefined;
  }, timeoutMs, 100);
}
