// Writes crds/*.yaml from src/schemas/crds.ts (and removes stale browserfn CRD files).
// Run: npx esbuild scripts/generate-crds.ts --bundle --platform=node --format=esm --packages=external \
//        --outfile=dist/scripts/generate-crds.mjs && node dist/scripts/generate-crds.mjs [out-dir]
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderCrdFiles } from '../src/schemas/crds.js';

const outDir = resolve(process.argv[2] ?? 'crds');
mkdirSync(outDir, { recursive: true });
const files = renderCrdFiles();
for (const stale of readdirSync(outDir).filter((name) => name.endsWith('.browserfn.dev.yaml') && !files.has(name))) {
  rmSync(join(outDir, stale));
}
for (const [name, content] of files) writeFileSync(join(outDir, name), content);
console.log(`wrote ${[...files.keys()].join(', ')} to ${outDir}`);
