import { defineRoute } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { askForBody } from '../../expect-continue.js';
import { authorizePod, type PodOwner, type PodParams } from './pod-access.js';
import { putRecordingFile, recordingRoom } from '../../../functions/recordings/recording-writes.js';
import { isSessionClosing, isTerminal } from '../../../functions/invocations.js';

interface Params extends PodParams {
  file: string;
}

export default defineRoute<Params, unknown, unknown, PodOwner>({
  method: 'put',
  path: '/internal/v1/pods/:namespace/:name/recording/:file',
  operationId: 'Internal_podRecordingUpload',
  summary: "A browser pod stores one file of its session's recording (raw bytes) in the artifact store, within the session's size cap",
  tags: ['internal'],
  auth: false,
  authorize: authorizePod,
  request: {
    params: {
      type: 'object',
      required: ['namespace', 'name', 'file'],
      properties: { namespace: { type: 'string', maxLength: 63 }, name: { type: 'string', maxLength: 253 }, file: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,120}$' } },
    },
  },
  responses: {
    204: { description: 'Stored' },
    400: { description: 'Not a recording file name' },
    403: { description: 'Not a browser pod, or its session has closed' },
    413: { description: "Over the session's BROWSERFN_RECORDING_MAX_MB" },
  },
  async handle(ctx, { params, caller: owner }, deps) {
    if (owner.kind !== 'invocation') throw new HttpError(403, 'Only browser pods store session recordings');
    const { invocation } = owner;
    // The pod stores its recording after its outcome, while it closes the session.
    if (isTerminal(invocation) && !(await isSessionClosing(deps.cluster, invocation))) {
      throw new HttpError(403, `The invocation has ended (${invocation.status?.phase}) and its session is closed; so is its recording`);
    }
    const maxBytes = deps.settings.recordingMaxBytes;
    const { room, stored } = await recordingRoom(deps.archive.store, params.namespace, invocation.spec.sessionId, params.file, maxBytes);
    const overCap = (size: number) => new HttpError(413, `The session's recording would be over its ${maxBytes}-byte cap (BROWSERFN_RECORDING_MAX_MB): ${stored} bytes stored, ${size} more sent`);
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > room) throw overCap(declared);
    const chunks: Buffer[] = [];
    let size = 0;
    askForBody(ctx.res);
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > room) throw overCap(size);
      chunks.push(chunk);
    }
    await putRecordingFile(deps.archive.store, params.namespace, invocation.spec.sessionId, params.file, Buffer.concat(chunks));
    ctx.status = 204;
  },
});
