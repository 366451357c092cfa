// The files a user process's code loader runs from: its script and the modules it imports, which
// Node's permission model must let that process read (and nothing else of the runtime's own code).
import { fileURLToPath } from 'node:url';

const sandboxFile = (file: string): string => fileURLToPath(new URL(`../${file}`, import.meta.url));

export const CODE_LOADER_PATH = sandboxFile('sandbox/code-loader.js');
/** What the code loader imports, directly or through each other (the channel and the console preload are every user process's: sandboxed-process.ts). */
export const CODE_LOADER_SUPPORT_PATHS = [
  'sandbox/devtools-protocol-cache.js',
  'sandbox/devtools-standby-connection.js',
  'sandbox/page-driver-warm-up.js',
  'agent-common/http-call.js',
].map(sandboxFile);
