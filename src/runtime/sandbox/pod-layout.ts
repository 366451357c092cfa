// Directories inside a pod directory. User code may write to app, home and tmp only; its code (the
// unpacked artifact) and the pod directory itself, which holds the node_modules link to the shared
// runtime modules, stay read-only.
import { join } from 'node:path';

export interface PodLayout {
  /** The unpacked artifact: the compiled entry and its installed packages (read-only to user code). */
  codeDir: string;
  /** The user process's cwd, writable. */
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
    codeDir: join(podDir, 'code'),
    appDir: join(podDir, 'app'),
    homeDir: join(podDir, 'home'),
    tmpDir: join(podDir, 'tmp'),
    browserDir: join(podDir, 'browser'),
  };
}
