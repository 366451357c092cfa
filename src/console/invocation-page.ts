// One invocation: status, params, results, the handler's logs, and its browser session (live view
// while it runs; recording, timeline and network waterfall once it ended). While the invocation
// has not ended the page checks it every two seconds and redraws when its status changes.
import { getJson, q } from './api.js';
import { code, facts, h, json, link, show, statusBadge, time } from './dom.js';
import { liveView } from './live-view.js';
import { logList } from './log-list.js';
import { playerView } from './player.js';
import { timelineView, waterfallView } from './session-view.js';
import { isTerminal, type FunctionInfo, type Invocation, type Logs, type Session, type SessionEvent, type Page } from './types.js';
import { pause } from './wait.js';

const POLL_MS = 2000;

export const invocationPage: Page = async (main, { segments: [, id] }, signal) => {
  let inv = await getJson<Invocation>(`/v1/functions/invocations/${q(id)}`, signal);
  await draw(main, inv, signal);
  if (isTerminal(inv.status)) return;
  void (async () => {
    while (!isTerminal(inv.status)) {
      await pause(POLL_MS, signal);
      const next = await getJson<Invocation>(`/v1/functions/invocations/${q(id)}`, signal);
      if (next.status !== inv.status) await draw(main, next, signal);
      inv = next;
    }
  })().catch(() => {
    // Navigated away, or the API stopped answering: the page keeps what it last showed.
  });
};

async function draw(main: HTMLElement, inv: Invocation, signal: AbortSignal): Promise<void> {
  const ended = isTerminal(inv.status);
  const [fn, logs, session, events] = await Promise.all([
    getJson<FunctionInfo>(`/v1/functions/${q(inv.functionId)}`, signal).catch(() => undefined),
    getJson<Logs>(`/v1/functions/invocations/${q(inv.id)}/logs`, signal),
    getJson<Session>(`/v1/sessions/${q(inv.sessionId)}`, signal),
    ended ? getJson<SessionEvent[]>(`/v1/sessions/${q(inv.sessionId)}/logs`, signal) : Promise.resolve(undefined),
  ]);
  document.title = `Invocation ${inv.id} · browserfn console`;
  const waiting = (what: string) => h('p', { class: 'empty' }, `${what} appears once the session ends.`);
  show(
    main,
    h('p', { class: 'crumbs' }, link('#/invocations', 'Invocations'), ' / ', inv.id),
    h('h1', {}, 'Invocation ', code(inv.id)),
    facts([
      ['Status', statusBadge(inv.status)],
      ['Function', link(`#/functions/${q(inv.functionId)}`, fn?.name ?? inv.functionId)],
      ['Version', code(inv.versionId)],
      ['Session', h('span', {}, code(inv.sessionId), ' ', statusBadge(session.status))],
      ['Created', time(inv.createdAt)],
      ['Started', time(inv.startedAt)],
      ['Ended', time(inv.endedAt)],
      ['Cause', inv.cause ? h('span', { class: 'cause' }, code(inv.cause.code), inv.cause.message ? ` ${inv.cause.message}` : '') : undefined],
    ]),
    h('section', { 'aria-labelledby': 'h-params' }, h('h2', { id: 'h-params' }, 'Params'), json(inv.params ?? {})),
    h(
      'section',
      { 'aria-labelledby': 'h-results' },
      h('h2', { id: 'h-results' }, 'Results'),
      ended ? (inv.results === undefined ? h('p', { class: 'empty' }, 'The handler returned nothing.') : json(inv.results)) : h('p', { class: 'empty' }, 'Not finished yet.'),
    ),
    h('section', { 'aria-labelledby': 'h-logs' }, h('h2', { id: 'h-logs' }, 'Handler logs'), logList('Handler logs', logs.logs)),
    ended
      ? h('section', { 'aria-labelledby': 'h-recording' }, h('h2', { id: 'h-recording' }, 'Recording'), playerView(inv.sessionId, signal))
      : h('section', { 'aria-labelledby': 'h-live' }, h('h2', { id: 'h-live' }, 'Live view'), inv.status === 'RUNNING' ? liveView(inv.sessionId, signal) : h('p', { class: 'empty' }, 'Waiting for a browser…')),
    h('section', { 'aria-labelledby': 'h-timeline' }, h('h2', { id: 'h-timeline' }, 'Session timeline'), events ? timelineView(events) : waiting('The timeline')),
    h('section', { 'aria-labelledby': 'h-network' }, h('h2', { id: 'h-network' }, 'Network'), events ? waterfallView(events) : waiting('The waterfall')),
  );
}
