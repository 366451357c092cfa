// The console's entry: the page frame, the API key gate and the hash router (#/functions/<id>…).
// Each page gets the main element and an AbortSignal that fires when the user navigates away,
// which stops its requests and polling.
import { ApiError, checkKey, forgetKey, storeKey, storedKey } from './api.js';
import { h, show } from './dom.js';
import { STYLES } from './styles.js';
import { buildPage, buildsPage } from './builds-page.js';
import { functionPage, functionsPage } from './functions-page.js';
import { invocationsPage } from './invocations-page.js';
import { invocationPage } from './invocation-page.js';
import type { Page, Route } from './types.js';

const NAV: [string, string][] = [
  ['functions', 'Functions'],
  ['builds', 'Builds'],
  ['invocations', 'Invocations'],
];

function pageFor({ segments: [section, id, ...rest] }: Route): Page | undefined {
  if (rest.length > 0) return undefined;
  if (section === 'functions') return id ? functionPage : functionsPage;
  if (section === 'builds') return id ? buildPage : buildsPage;
  if (section === 'invocations') return id ? invocationPage : invocationsPage;
  return undefined;
}

function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

const sheet = new CSSStyleSheet();
sheet.replaceSync(STYLES);
document.adoptedStyleSheets = [sheet];

const navLinks = NAV.map(([section, label]) => h('a', { href: `#/${section}`, 'data-section': section }, label));
const forget = h('button', { type: 'button', class: 'quiet', onclick: signOut }, 'Forget key');
const main = h('main', { id: 'main', tabindex: -1 });
document.body.replaceChildren(
  h('header', {}, h('span', { class: 'brand' }, 'browserfn'), h('nav', { 'aria-label': 'Main' }, navLinks), forget),
  main,
  h('p', { id: 'announcer', class: 'visually-hidden', 'aria-live': 'polite' }),
);

let current: AbortController | undefined;

function render(): void {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  if (!storedKey()) return askForKey();
  forget.hidden = false;
  if (!location.hash || location.hash === '#' || location.hash === '#/') {
    location.replace('#/functions');
    return;
  }
  const route = parseRoute(location.hash);
  for (const a of navLinks) {
    if (a.dataset.section === route.segments[0]) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const page = pageFor(route);
  if (!page) return show(main, h('h1', {}, 'Not found'), h('p', {}, 'The console has no such page.'));
  show(main, h('p', { class: 'loading' }, 'Loading…'));
  page(main, route, controller.signal).then(
    () => {
      if (controller.signal.aborted) return;
      main.focus({ preventScroll: true });
      announce(document.title);
    },
    (err: unknown) => {
      if (controller.signal.aborted) return;
      if (err instanceof ApiError && err.status === 401) {
        forgetKey();
        return askForKey('The API key was refused; enter it again.');
      }
      show(main, h('h1', {}, err instanceof ApiError && err.status === 404 ? 'Not found' : 'Something went wrong'), h('p', { role: 'alert' }, err instanceof Error ? err.message : String(err)));
    },
  );
}

function signOut(): void {
  forgetKey();
  render();
}

function askForKey(problem?: string): void {
  forget.hidden = true;
  document.title = 'API key · browserfn console';
  const input = h('input', { id: 'api-key', type: 'password', name: 'api-key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const error = h('p', { class: 'error', role: 'alert' }, problem);
  const form = h(
    'form',
    { class: 'key-form' },
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('button', { type: 'submit' }, 'Open the console'),
    h('p', { class: 'hint' }, 'Kept in this tab until the browser session ends.'),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    checkKey(input.value).then(
      () => {
        storeKey(input.value);
        render();
      },
      (err: unknown) => show(error, err instanceof ApiError && err.status === 401 ? 'That key is not valid.' : `The API did not answer: ${String(err)}`),
    );
  });
  show(main, h('h1', {}, 'browserfn console'), form);
  input.focus();
}

function announce(text: string): void {
  const announcer = document.getElementById('announcer');
  if (announcer) announcer.textContent = text;
}

window.addEventListener('hashchange', render);
render();
