// The entry file named at publish time, resolved inside the extracted project.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { BuildFailure } from './build-failure.js';

export function resolveEntrypoint(projectDir: string, entrypoint: string): string {
  const relative = posix.normalize(entrypoint.replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
  if (!entrypoint || relative === '.' || relative.startsWith('/') || relative === '..' || relative.startsWith('../')) {
    throw new BuildFailure('ENTRYPOINT_NOT_FOUND', `The entrypoint "${entrypoint}" must be a file path inside the project, relative to its root (e.g. "index.ts")`);
  }
  const path = join(projectDir, relative);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new BuildFailure(
      'ENTRYPOINT_NOT_FOUND',
      `The entrypoint "${entrypoint}" is not a file in the uploaded project (top-level entries: ${topLevelEntries(projectDir)}). Pass the entry file's path relative to the project root.`,
    );
  }
  const root = realpathSync(projectDir);
  if (!realpathSync(path).startsWith(root + sep)) {
    throw new BuildFailure('ENTRYPOINT_NOT_FOUND', `The entrypoint "${entrypoint}" resolves outside the project`);
  }
  return path;
}

function topLevelEntries(projectDir: string): string {
  const names = readdirSync(projectDir).filter((name) => name !== 'node_modules').sort();
  if (names.length === 0) return 'none';
  return names.slice(0, 15).join(', ') + (names.length > 15 ? ', …' : '');
}
