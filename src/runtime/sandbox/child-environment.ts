// The environment every child that runs project code or tools on it starts from: nothing of the
// agent's (no tokens, no BROWSERFN_*), only where programs are and a home and temp folder of its own.

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface ChildFolders {
  homeDir: string;
  tmpDir: string;
  /** The agent's environment, read for PATH only. */
  agentEnv: NodeJS.ProcessEnv;
}

export function baseChildEnvironment({ homeDir, tmpDir, agentEnv }: ChildFolders): Record<string, string> {
  return { PATH: agentEnv.PATH ?? DEFAULT_PATH, HOME: homeDir, TMPDIR: tmpDir };
}
