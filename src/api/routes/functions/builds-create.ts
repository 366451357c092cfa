import busboy from 'busboy';
import { defineRoute, type RouteContext } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { createBuild, parseBuildMetadata } from '../../../functions/builds.js';
import { buildView } from '../../../functions/views.js';

export default defineRoute({
  method: 'post',
  path: '/v1/functions/builds',
  operationId: 'Functions_createBuild',
  summary: 'Upload a project (multipart: metadata JSON + archive.tar.gz) and build its Functions',
  tags: ['functions'],
  responses: { 201: { description: 'The build, PENDING' }, 400: { description: 'Bad upload' }, 413: { description: 'Archive too large' } },
  async handle(ctx, _input, deps) {
    const { metadata, archive } = await readUpload(ctx, deps.settings.maxArchiveBytes);
    const request = parseBuildMetadata(metadata);
    if (!archive || archive.length === 0) throw new HttpError(400, 'Missing the "archive" file part: a .tar.gz of the project');
    if (archive[0] !== 0x1f || archive[1] !== 0x8b) throw new HttpError(400, 'The "archive" part must be gzip-compressed (archive.tar.gz)');
    const build = await createBuild(deps.cluster, ctx.state.project, request, archive);
    ctx.status = 201;
    ctx.body = buildView(build);
  },
});

function readUpload(ctx: RouteContext, maxArchiveBytes: number): Promise<{ metadata?: string; archive?: Buffer }> {
  if (!ctx.is('multipart/form-data')) {
    throw new HttpError(415, 'Send multipart/form-data with a "metadata" field and an "archive" file');
  }
  return new Promise((resolve, reject) => {
    const result: { metadata?: string; archive?: Buffer } = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fileSize: maxArchiveBytes, files: 1, fields: 10, fieldSize: 64 * 1024 } });
    } catch (err) {
      reject(new HttpError(400, `Malformed multipart body: ${(err as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => {
      if (name === 'metadata') result.metadata = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'archive') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => reject(new HttpError(413, `The archive exceeds ${maxArchiveBytes} bytes; leave node_modules, build output and data files out of the project folder`)));
      stream.on('end', () => {
        result.archive = Buffer.concat(chunks);
      });
    });
    parser.on('error', (err: Error) => reject(new HttpError(400, `Malformed multipart body: ${err.message}`)));
    parser.on('close', () => resolve(result));
    ctx.req.pipe(parser);
  });
}
