// Writes small user projects to temp folders for publish tests.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function writeProject(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'browserfn-project-'));
  const all = { 'package.json': JSON.stringify({ name: 'test-project', version: '1.0.0', type: 'module' }), ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}
