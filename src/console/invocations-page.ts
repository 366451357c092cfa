// Invocations, newest first, filtered by status (and by Function when reached from one). The
// filter lives in the address (#/invocations?status=FAILED), so it survives reloads and links.
import { getJson, q } from './api.js';
import { code, h, link, show, statusBadge, table, time } from './dom.js';
import type { FunctionInfo, Invocation, List, Page } from './types.js';

const STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'];

export const invocationsPage: Page = async (main, { query }, signal) => {
  const status = query.get('status') ?? '';
  const functionId = query.get('functionId') ?? '';
  const filter = new URLSearchParams({ limit: '200' });
  if (STATUSES.includes(status)) filter.set('status', status);
  if (functionId) filter.set('functionId', functionId);
  const [list, functions] = await Promise.all([
    getJson<List<Invocation>>(`/v1/functions/invocations?${filter}`, signal),
    getJson<List<FunctionInfo>>('/v1/functions?limit=1000', signal),
  ]);
  const names = new Map(functions.data.map((fn) => [fn.id, fn.name]));
  document.title = 'Invocations · browserfn console';

  const select = h(
    'select',
    { id: 'status-filter', name: 'status' },
    h('option', { value: '' }, 'Any status'),
    STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)),
  );
  select.addEventListener('change', () => {
    const next = new URLSearchParams();
    if (select.value) next.set('status', select.value);
    if (functionId) next.set('functionId', functionId);
    location.hash = `#/invocations${next.size ? `?${next}` : ''}`;
  });

  show(
    main,
    h('h1', {}, 'Invocations'),
    h(
      'div',
      { class: 'filters' },
      h('label', { for: 'status-filter' }, 'Status'),
      select,
      functionId ? h('span', {}, 'of ', link(`#/functions/${q(functionId)}`, names.get(functionId) ?? functionId), ' · ', link(status ? `#/invocations?status=${q(status)}` : '#/invocations', 'all Functions')) : null,
    ),
    table(
      `${list.total} invocations${list.total > list.data.length ? ` (the ${list.data.length} newest shown)` : ''}`,
      ['Invocation', 'Function', 'Status', 'Created', 'Ended', 'Cause'],
      list.data.map((inv) => [
        link(`#/invocations/${q(inv.id)}`, inv.id),
        link(`#/functions/${q(inv.functionId)}`, names.get(inv.functionId) ?? inv.functionId),
        statusBadge(inv.status),
        time(inv.createdAt),
        time(inv.endedAt),
        inv.cause ? code(inv.cause.code) : '',
      ]),
      status ? `No ${status} invocations.` : 'No invocations yet.',
    ),
    h('p', { class: 'hint' }, 'Invocations stay listed while they are in the cluster store (an hour after they end by default); an older one opens by its ID: #/invocations/<id>.'),
  );
};
