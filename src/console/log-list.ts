// Log lines (a build's, or a handler's console output) as a list with time and level.
import { h } from './dom.js';
import type { LogLine } from './types.js';

export function logList(label: string, lines: LogLine[]): HTMLElement {
  if (lines.length === 0) return h('p', { class: 'empty' }, 'No log lines.');
  return h(
    'ol',
    { class: 'log', 'aria-label': label },
    lines.map((line) =>
      h(
        'li',
        { class: `level-${line.level ?? 'info'}` },
        h('time', { datetime: line.timestamp }, new Date(line.timestamp).toLocaleTimeString()),
        h('span', { class: 'level' }, line.level ?? 'info'),
        h('pre', {}, line.message),
      ),
    ),
  );
}
