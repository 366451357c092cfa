// Builds, and one build with its log.
import { getJson, q } from './api.js';
import { code, facts, h, link, show, statusBadge, table, time } from './dom.js';
import type { Build, List, Logs, Page } from './types.js';
import { logList } from './log-list.js';

export const buildsPage: Page = async (main, _route, signal) => {
  const list = await getJson<List<Build>>('/v1/functions/builds?limit=200', signal);
  document.title = 'Builds · browserfn console';
  show(
    main,
    h('h1', {}, 'Builds'),
    table(
      `${list.total} builds, newest first${list.total > list.data.length ? ` (the ${list.data.length} newest shown)` : ''}`,
      ['Build', 'Status', 'Entry', 'Functions', 'Created'],
      list.data.map((b) => [
        link(`#/builds/${q(b.id)}`, b.id),
        statusBadge(b.status),
        code(b.request.entrypoint),
        (b.builtFunctions ?? []).map((f) => f.name).join(', '),
        time(b.createdAt),
      ]),
      'No builds yet.',
    ),
  );
};

export const buildPage: Page = async (main, { segments: [, id] }, signal) => {
  const [build, logs] = await Promise.all([getJson<Build>(`/v1/functions/builds/${q(id)}`, signal), getJson<Logs>(`/v1/functions/builds/${q(id)}/logs`, signal)]);
  document.title = `Build ${build.id} · browserfn console`;
  show(
    main,
    h('p', { class: 'crumbs' }, link('#/builds', 'Builds'), ' / ', build.id),
    h('h1', {}, 'Build ', code(build.id)),
    facts([
      ['Status', statusBadge(build.status)],
      ['Entry', code(build.request.entrypoint)],
      ['Created', time(build.createdAt)],
      ['Ended', time(build.endedAt)],
      ['Cause', build.cause ? `${build.cause.code}${build.cause.message ? `: ${build.cause.message}` : ''}` : undefined],
    ]),
    h('h2', {}, 'Functions built'),
    table(
      'Functions built or updated',
      ['Function', 'Version'],
      (build.builtFunctions ?? []).map((f) => [link(`#/functions/${q(f.id)}`, f.name), code(f.createdVersion)]),
      'None.',
    ),
    h('h2', {}, 'Log'),
    logList('Build log', logs.logs),
  );
};
