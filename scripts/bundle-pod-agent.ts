// Bundles the pod agent that tsc built (dist/src/runtime/pod-agent/main.js) into an entry and one
// chunk beside it, with the list of the files it was made from: the node agent runs it while none of them
// has changed since (src/runtime/node-agent/agent-mains.ts). `make build` and the image run it
// after tsc, as package.json's bundle:pod-agent (which builds this script first).
import { build } from 'esbuild';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POD_AGENT_BUNDLE_FILE, POD_AGENT_BUNDLE_INPUTS_FILE, POD_AGENT_CHUNK_PREFIX } from '../src/runtime/node-agent/agent-mains.js';

const podAgentDir = fileURLToPath(new URL('../src/runtime/pod-agent/', import.meta.url));
const bundle = join(podAgentDir, POD_AGENT_BUNDLE_FILE);
const partialDir = join(podAgentDir, 'bundle.partial');
rmSync(partialDir, { recursive: true, force: true });

// Split at main.js's dynamic import: the agent's code is a chunk of its own, compiled only once the
// entry has chosen how (eagerly in a pool member, src/runtime/pod-agent/main.ts).
const result = await build({
  entryPoints: [join(podAgentDir, 'main.js')],
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: partialDir,
  entryNames: POD_AGENT_BUNDLE_FILE.replace(/\.mjs$/, ''),
  chunkNames: `${POD_AGENT_CHUNK_PREFIX}[hash]`,
  outExtension: { '.js': '.mjs' },
  metafile: true,
  logLevel: 'warning',
  // chrome-remote-interface's own copy of the protocol (1.2 MB) is for `local: true` only; the agent's
  // clients name theirs (no domains), so the copy is left out: about 5 ms less to compile at each start.
  plugins: [
    {
      name: 'no-local-protocol',
      setup(build) {
        build.onResolve({ filter: /^\.\/protocol\.json$/ }, (args) => (args.importer.includes('chrome-remote-interface') ? { path: 'protocol.json', namespace: 'no-local-protocol' } : undefined));
        build.onLoad({ filter: /.*/, namespace: 'no-local-protocol' }, () => ({ contents: '{}', loader: 'json' }));
      },
    },
  ],
  // The packages in CommonJS call require(), which an ES module does not have.
  banner: { js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);" },
});
// The packages' files too: an install after the bundle was made (npm writes them anew) makes it stale.
// The stand-in for the protocol's copy is no file.
const inputs = Object.keys(result.metafile.inputs)
  .filter((input) => !input.startsWith('no-local-protocol:'))
  .map((input) => relative(podAgentDir, resolve(input)));
writeFileSync(join(podAgentDir, POD_AGENT_BUNDLE_INPUTS_FILE), JSON.stringify(inputs, null, 1));
const chunks = readdirSync(partialDir).filter((file) => file !== POD_AGENT_BUNDLE_FILE);
for (const old of readdirSync(podAgentDir)) if (old.startsWith(POD_AGENT_CHUNK_PREFIX) && !chunks.includes(old)) rmSync(join(podAgentDir, old));
for (const chunk of chunks) renameSync(join(partialDir, chunk), join(podAgentDir, chunk));
// The entry last and whole, so a bundle is never newer than its list of inputs nor read half-written, nor before its chunks.
renameSync(join(partialDir, POD_AGENT_BUNDLE_FILE), bundle);
rmSync(partialDir, { recursive: true });
console.log(`bundled the pod agent from ${inputs.length} files into ${relative(process.cwd(), bundle)} and ${chunks.length} chunk(s)`);
