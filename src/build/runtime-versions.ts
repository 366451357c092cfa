// A project that installs its own browser automation package runs with the runtime's instead
// (artifact.ts removes the project's copy, bundle-aliases.ts points imports at the runtime's): the
// build log says so, by version, where the two differ, so code pinned to an older API is not
// surprised silently at run time.
import { join } from 'node:path';
import { CORE_PACKAGE_OF, isRuntimePackage } from '../schemas/runtime-packages.js';
import { installedVersion } from './artifact.js';

/** One warning per replaced `name@version` whose runtime counterpart has another version. */
export function replacedVersionWarnings(replacedVersions: string[], runtimeModulesDir: string): string[] {
  const warnings: string[] = [];
  for (const replaced of replacedVersions) {
    const at = replaced.lastIndexOf('@');
    const [name, version] = [replaced.slice(0, at), replaced.slice(at + 1)];
    const runtimeName = isRuntimePackage(name) ? name : CORE_PACKAGE_OF[name];
    if (!runtimeName) continue;
    const runtimeVersion = installedVersion(join(runtimeModulesDir, runtimeName));
    if (runtimeVersion === undefined || runtimeVersion === version) continue;
    warnings.push(
      `The project installs ${name} ${version}; its code runs with the runtime's ${runtimeName} ${runtimeVersion} instead (the runtime provides the browser automation packages). ` +
        `Test the code against ${runtimeVersion}, or pin ${name} to it.`,
    );
  }
  return warnings;
}
