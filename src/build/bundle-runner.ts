// Runs in its own process, started by bundle-process.ts with a scrubbed environment, so esbuild
// (whose service process inherits this environment) sees nothing of the agent's. Reads the
// request from argv, writes the bundle to its outFile and one JSON result line to stdout.
import { writeFileSync } from 'node:fs';
import { BuildFailure } from './build-failure.js';
import { bundleEntry, type BundleRequest } from './bundle.js';
import type { RuntimePackage } from '../schemas/runtime-packages.js';

export type BundleRunnerResult = { ok: true; warnings: string[]; runtimePackages: RuntimePackage[] } | { ok: false; code: BuildFailure['code']; message: string };

const request = JSON.parse(process.argv[2] ?? '{}') as BundleRequest;
let result: BundleRunnerResult;
try {
  const bundle = await bundleEntry(request);
  writeFileSync(request.outFile, bundle.code);
  result = { ok: true, warnings: bundle.warnings, runtimePackages: bundle.runtimePackages };
} catch (error) {
  result =
    error instanceof BuildFailure
      ? { ok: false, code: error.code, message: error.message }
      : { ok: false, code: 'INTERNAL_ERROR', message: `esbuild failed unexpectedly: ${(error as Error).message}` };
}
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
