// archive.tar.gz of a project directory, as the publish step uploads it (no node_modules).
import { c as createTar } from 'tar';

export async function archiveProject(dir: string): Promise<Buffer> {
  const stream = createTar({ gzip: true, cwd: dir, portable: true, filter: (path) => !/(^|\/)(node_modules|\.browserbase)(\/|$)/.test(path) }, ['.']);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
