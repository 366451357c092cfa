// A small DOM builder: every page is made of elements and text nodes, never of HTML strings, so
// data from the API can never turn into markup.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A table with a header row; `rows` empty shows `empty` instead. */
export function table(caption: string, headers: string[], rows: Child[][], empty: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headers.map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell))))),
  );
}

/** Term/description pairs; undefined values are left out. */
export function facts(pairs: [string, Child][]): HTMLElement {
  return h('dl', { class: 'facts' }, pairs.filter(([, v]) => v !== undefined).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

export const link = (href: string, text: string): HTMLAnchorElement => h('a', { href }, text);

export const code = (text: string): HTMLElement => h('code', {}, text);

export const json = (value: unknown): HTMLElement => h('pre', { class: 'json' }, JSON.stringify(value, null, 2) ?? 'undefined');

export const statusBadge = (status: string): HTMLElement => h('span', { class: `status status-${status.toLowerCase()}` }, status);

export function time(iso: string | number | undefined): Child {
  if (iso === undefined || iso === '') return undefined;
  const date = new Date(iso);
  return h('time', { datetime: date.toISOString() }, date.toLocaleString());
}
