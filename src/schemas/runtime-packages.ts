// The packages the Function runtime provides to user code (in the runtime image, or this package's
// own node_modules): builds keep them external and leave them out of artifacts, code loaders load
// them from the runtime, warm pool members load them ahead. `playwright` and `puppeteer` become
// their -core packages (src/build/bundle-aliases.ts).
export const RUNTIME_PACKAGES = ['chrome-remote-interface', 'playwright-core', 'puppeteer-core'] as const;

export type RuntimePackage = (typeof RUNTIME_PACKAGES)[number];

export const isRuntimePackage = (name: string): name is RuntimePackage => (RUNTIME_PACKAGES as readonly string[]).includes(name);

/** The packages that are a runtime package plus browser downloads, and the runtime package each becomes. */
export const CORE_PACKAGE_OF: Readonly<Record<string, RuntimePackage>> = { playwright: 'playwright-core', puppeteer: 'puppeteer-core' };
