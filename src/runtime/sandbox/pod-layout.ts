// Directories inside a pod directory. User code may write to app, home and tmp only; the pod
// directory itself holds the node_modules link to the shared runtime modules and stays read-only.
import { join } from 'node:path';

export interface PodLayout {
  /** The bundle, and the user process's cwd. */
  appDir: string;
  /** HOME of processes started in the pod. */
  homeDir: string;
  /** TMPDIR of processes started in the pod. */
  tmpDir: string;
  /** Chromium's profile and files. */
  browserDir: string;
}

export function podLayout(podDir: string): PodLayout {
  return {
    appDir: join(podDir, 'app'),
    homeDir: join(podDir, 'home'),
    tmpDir: join(podDir, 'tmp'),
    browserDir: join(podDir, 'browser'),
  };
}
