import busboy from 'busboy';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { defineRoute, type RouteContext } from '../../route.js';
import { HttpError } from '../../http-error.js';
import { askForBody } from '../../expect-continue.js';
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
    // The archive is spooled to a private temp file (the multipart parts may come in any order,
    // and its Build can only be made once the metadata is read), then streamed into chunk ConfigMaps.
    const spoolDir = mkdtempSync(join(tmpdir(), 'browserfn-upload-'));
    try {
      const archiveFile = join(spoolDir, 'archive.tar.gz');
      const { metadata, archive } = await readUpload(ctx, deps.settings.maxArchiveBytes, archiveFile);
      const request = parseBuildMetadata(metadata);
      if (!archive || archive.size === 0) throw new HttpError(400, 'Missing the "archive" file part: a .tar.gz of the project');
      if (archive.head[0] !== 0x1f || archive.head[1] !== 0x8b) throw new HttpError(400, 'The "archive" part must be gzip-compressed (archive.tar.gz)');
      const build = await createBuild(deps.cluster, ctx.state.project, request, () => createReadStream(archiveFile, { highWaterMark: 1024 * 1024 }));
      ctx.status = 201;
      ctx.body = buildView(build);
    } finally {
      rmSync(spoolDir, { recursive: true, force: true });
    }
  },
});

interface SpooledArchive {
  size: number;
  /** Its first bytes (the gzip magic). */
  head: Buffer;
}

function readUpload(ctx: RouteContext, maxArchiveBytes: number, archiveFile: string): Promise<{ metadata?: string; archive?: SpooledArchive }> {
  if (!ctx.is('multipart/form-data')) {
    throw new HttpError(415, 'Send multipart/form-data with a "metadata" field and an "archive" file');
  }
  return new Promise((resolve, reject) => {
    const result: { metadata?: string; archive?: SpooledArchive } = {};
    let spooled: Promise<void> = Promise.resolve();
    let spoolFile: WriteStream | undefined;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fileSize: maxArchiveBytes, files: 1, fields: 10, fieldSize: 64 * 1024 } });
    } catch (err) {
      reject(new HttpError(400, `Malformed multipart body: ${(err as Error).message}`));
      return;
    }
    // The parser, and with it the file being spooled, is destroyed, and the answer waits until that
    // file is closed: no descriptor outlives the request, whatever the client does after the answer.
    // Destroyed one turn later, as busboy still uses the file stream after emitting 'limit'.
    let abandoned = false;
    const abandon = (error: HttpError): void => {
      if (abandoned) return;
      abandoned = true;
      ctx.req.unpipe(parser);
      // What is left of the body is read and dropped, so the client is answered as it goes on sending.
      ctx.req.resume();
      setImmediate(() => {
        parser.destroy();
        const file = spoolFile;
        if (!file || file.closed) reject(error);
        else file.once('close', () => reject(error));
      });
    };
    parser.on('field', (name, value) => {
      if (name === 'metadata') result.metadata = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'archive') {
        stream.resume();
        return;
      }
      const archive: SpooledArchive = { size: 0, head: Buffer.alloc(0) };
      stream.on('data', (chunk: Buffer) => {
        if (archive.head.length < 2) archive.head = Buffer.concat([archive.head, chunk.subarray(0, 2)]);
        archive.size += chunk.length;
      });
      stream.on('limit', () => abandon(new HttpError(413, tooLarge(maxArchiveBytes, ctx.get('content-length')))));
      spoolFile = createWriteStream(archiveFile, { mode: 0o600 });
      spooled = pipeline(stream, spoolFile).then(() => {
        result.archive = archive;
      });
      // Awaited at the parser's close; an abandoned upload must not leave it unhandled.
      spooled.catch(() => undefined);
    });
    parser.on('error', (err: Error) => abandon(new HttpError(400, `Malformed multipart body: ${err.message}`)));
    parser.on('close', () => {
      if (!abandoned) spooled.then(() => resolve(result), reject);
    });
    ctx.req.on('close', () => {
      if (!ctx.req.complete) abandon(new HttpError(400, 'The upload ended before its body did; send it again'));
    });
    askForBody(ctx.res);
    ctx.req.pipe(parser);
  });
}

function tooLarge(limit: number, contentLength: string): string {
  const sent = /^\d+$/.test(contentLength) ? ` (the upload is ${contentLength} bytes)` : '';
  return (
    `The archive is over the ${limit}-byte (${(limit / 1024 / 1024).toFixed(1)} MiB) limit${sent}, BROWSERFN_MAX_ARCHIVE_BYTES; ` +
    'leave node_modules, build output and data files out of the project folder'
  );
}
