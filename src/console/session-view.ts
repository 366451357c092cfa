// The session timeline (console, page and network moments) and the network waterfall.
import { h, show, table } from './dom.js';
import { networkRequests, timeline, type NetworkRequest, type TimelineRow } from './session-events.js';
import type { SessionEvent } from './types.js';

const offset = (ms: number): string => `+${(ms / 1000).toFixed(3)} s`;

// What the timeline's "Show" choice keeps: console output (with exceptions and dialogs), network or page events.
const GROUPS: Record<string, { label: string; kinds: TimelineRow['kind'][] }> = {
  all: { label: 'Everything', kinds: ['console', 'exception', 'dialog', 'network', 'page', 'note'] },
  console: { label: 'Console and errors', kinds: ['console', 'exception', 'dialog', 'note'] },
  network: { label: 'Network', kinds: ['network', 'note'] },
  page: { label: 'Page events', kinds: ['page', 'note'] },
};

export function timelineView(events: SessionEvent[]): HTMLElement {
  const rows = timeline(events);
  const t0 = rows[0]?.at ?? 0;
  const select = h('select', { id: 'timeline-show' }, Object.entries(GROUPS).map(([value, group]) => h('option', { value }, group.label)));
  const holder = h('div');
  const draw = () => {
    const kinds = GROUPS[select.value].kinds;
    const shown = rows.filter((row) => kinds.includes(row.kind));
    show(
      holder,
      table(
        `${shown.length} of ${rows.length} console, page and network events`,
        ['Time', 'Kind', 'Level', 'Event'],
        shown.map((row) => [h('time', { datetime: new Date(row.at).toISOString() }, offset(row.at - t0)), row.kind, h('span', { class: `level level-${row.level}` }, row.level), h('span', { class: 'event-text' }, row.text)]),
        rows.length === 0 ? 'The session recorded no console, page or network events.' : 'None of this kind.',
      ),
    );
  };
  select.addEventListener('change', draw);
  draw();
  return h('div', { class: 'timeline' }, h('div', { class: 'filters' }, h('label', { for: 'timeline-show' }, 'Show'), select), holder);
}

const size = (bytes: number | undefined): string => (bytes === undefined ? '' : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

function outcome(r: NetworkRequest): string {
  if (r.failed) return r.failed;
  return r.status === undefined ? 'pending' : String(r.status);
}

export function waterfallView(events: SessionEvent[]): HTMLElement {
  const requests = networkRequests(events);
  if (requests.length === 0) return h('p', { class: 'empty' }, 'No network requests were recorded.');
  const t0 = requests[0].start;
  const tEnd = Math.max(...requests.map((r) => r.end ?? r.responseAt ?? r.start));
  const span = Math.max(tEnd - t0, 0.001);
  const percent = (seconds: number) => `${((seconds / span) * 100).toFixed(3)}%`;
  return h(
    'table',
    { class: 'waterfall' },
    h('caption', {}, `${requests.length} network requests over ${(span * 1000).toFixed(0)} ms`),
    h('thead', {}, h('tr', {}, ['Method', 'Status', 'URL', 'Type', 'Size', 'Time', 'Timing'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      requests.map((r) => {
        const end = r.end ?? r.responseAt ?? r.start;
        const bar = h('div', { class: 'bar' + (r.failed || (r.status ?? 0) >= 400 ? ' bar-error' : '') });
        // Positions are set through the CSSOM, which the console's CSP allows (style attributes it does not).
        bar.style.marginLeft = percent(r.start - t0);
        bar.style.width = percent(Math.max(end - r.start, span / 500));
        if (r.responseAt !== undefined && end > r.start) {
          const waiting = h('div', { class: 'bar-waiting' });
          waiting.style.width = `${(((r.responseAt - r.start) / (end - r.start)) * 100).toFixed(3)}%`;
          bar.append(waiting);
        }
        return h(
          'tr',
          { class: 'request' },
          h('td', {}, r.method),
          h('td', {}, outcome(r)),
          h('td', { class: 'url' }, h('span', { title: r.url }, r.url)),
          h('td', {}, r.type ?? ''),
          h('td', {}, size(r.bytes)),
          h('td', {}, r.end === undefined ? '' : `${((end - r.start) * 1000).toFixed(0)} ms`),
          h('td', { class: 'track', 'aria-hidden': 'true' }, bar),
        );
      }),
    ),
  );
}
