// Shows handlers' console output live: browser pods started with BROWSERFN_ECHO_CONSOLE=1 write
// each console entry (already redacted) as a `console` record of their own log, which the local
// node agent passes here as the pod's output comes.
export interface ConsoleLine {
  pod: string;
  level: string;
  message: string;
}

export type PodOutput = (pod: { namespace: string; name: string }, text: string) => void;

/** Collects the pods' output into lines and hands on the console records among them. */
export function consoleEcho(onLine: (line: ConsoleLine) => void): PodOutput {
  const pending = new Map<string, string>();
  return (pod, text) => {
    const lines = ((pending.get(pod.name) ?? '') + text).split('\n');
    const rest = lines.pop() ?? '';
    if (rest) pending.set(pod.name, rest);
    else pending.delete(pod.name);
    for (const line of lines) {
      const record = consoleRecord(line);
      if (record) onLine({ pod: pod.name, ...record });
    }
  };
}

function consoleRecord(line: string): { level: string; message: string } | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as { msg?: unknown; console?: { level?: unknown; message?: unknown } };
    const entry = parsed.msg === 'console' ? parsed.console : undefined;
    if (!entry || typeof entry.message !== 'string') return undefined;
    return { level: typeof entry.level === 'string' ? entry.level : 'info', message: entry.message };
  } catch {
    return undefined;
  }
}

/** As the terminal shows it: `[function] message`, the level named unless it is info or log. */
export function formatConsole(line: ConsoleLine, label: string): string {
  const level = line.level === 'info' || line.level === 'log' ? '' : ` ${line.level}`;
  return `[${label}${level}] ${line.message}`;
}
