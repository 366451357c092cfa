// Functions, and one Function with its versions.
import { getJson, q } from './api.js';
import { code, facts, h, json, link, show, table, time } from './dom.js';
import type { FunctionInfo, List, Version, Page } from './types.js';

export const functionsPage: Page = async (main, _route, signal) => {
  const list = await getJson<List<FunctionInfo>>('/v1/functions?limit=1000', signal);
  document.title = 'Functions · browserfn console';
  show(
    main,
    h('h1', {}, 'Functions'),
    table(
      `${list.total} Functions`,
      ['Name', 'ID', 'Updated'],
      list.data.map((fn) => [link(`#/functions/${q(fn.id)}`, fn.name), code(fn.id), time(fn.updatedAt)]),
      'No Function is published yet: `browserfn publish <entry file>` publishes one.',
    ),
  );
};

export const functionPage: Page = async (main, { segments: [, id] }, signal) => {
  const [fn, versions] = await Promise.all([
    getJson<FunctionInfo>(`/v1/functions/${q(id)}`, signal),
    getJson<{ results: Version[]; total: number }>(`/v1/functions/${q(id)}/versions?limit=1000`, signal),
  ]);
  document.title = `${fn.name} · browserfn console`;
  show(
    main,
    h('p', { class: 'crumbs' }, link('#/functions', 'Functions'), ' / ', fn.name),
    h('h1', {}, fn.name),
    facts([
      ['ID', code(fn.id)],
      ['Created', time(fn.createdAt)],
      ['Updated', time(fn.updatedAt)],
      ['Current version', fn.currentVersionId ? code(fn.currentVersionId) : 'none'],
    ]),
    h('p', {}, link(`#/invocations?functionId=${q(fn.id)}`, `Invocations of ${fn.name}`)),
    h('h2', {}, 'Versions'),
    table(
      `${versions.total} versions, newest first`,
      ['Version', 'ID', 'Build', 'Created', 'Session config', 'Parameters schema'],
      versions.results.map((v) => [
        String(v.version),
        code(v.id),
        v.functionBuildId ? link(`#/builds/${q(v.functionBuildId)}`, v.functionBuildId) : '—',
        time(v.createdAt),
        json(v.sessionCreateParams),
        v.userParamsSchema ? json(v.userParamsSchema) : 'none',
      ]),
      'No versions.',
    ),
  );
};
