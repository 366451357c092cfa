// helm for the chart tests: where scripts/chart/build.sh caches it, and whether it can be had here.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './controlplane.js';

const ROOT = repoRoot();
export const HELM = join(process.env.BROWSERFN_CHART_TOOLS_DIR ?? join(ROOT, '.cache', 'chart-tools'), 'bin', 'helm');

/** Why helm cannot be had here (build.sh exits 3 without Go and without a helm built before), or undefined. */
export function helmUnavailable(): string | undefined {
  const built = spawnSync('bash', [join(ROOT, 'scripts', 'chart', 'build.sh')], { encoding: 'utf8' });
  if (built.status === 3) return built.stderr.trim() || 'Go is not installed and helm was not built before';
  if (built.status !== 0) throw new Error(`scripts/chart/build.sh failed:\n${built.stdout}\n${built.stderr}`);
  return undefined;
}
