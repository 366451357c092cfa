// The version `browserfn --version` prints: the package's own, read from its package.json, which
// sits three folders above this file both in the source tree and compiled (dist/src/cli).
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
