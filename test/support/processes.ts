// Finds processes whose command line mentions a path: how tests prove nothing was left running.
import { readdirSync, readFileSync } from 'node:fs';

export function processesMentioning(path: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(path)) found.push({ pid: Number(entry), cmdline });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
