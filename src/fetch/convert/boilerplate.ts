// What counts as page chrome rather than content, judged from tags, ARIA roles and the words of
// class and id names. Generic vocabulary only: nothing here is tuned to a particular site.
import { textOf, type Element } from './dom.js';
import { isSkippedTag } from './markdown-writer.js';

const CHROME_TAGS = new Set(['nav', 'footer', 'aside', 'header', 'dialog', 'menu', 'search', 'address', 'fieldset']);

const CHROME_ROLES = new Set([
  'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar',
  'toolbar', 'alert', 'status', 'tooltip', 'listbox', 'radiogroup', 'combobox',
]);

/**
 * Words that mark chrome when a class/id name starts with them, ends with them, or is exactly
 * them. Some words only count in some positions: `sidebar` alone is a sidebar, but
 * `sidebar-layout` wraps the article.
 */
const CHROME_ANYWHERE = new Set([
  'nav', 'navbar', 'navigation', 'navlinks', 'menu', 'menubar', 'megamenu', 'submenu', 'sidemenu', 'footer', 'header',
  'masthead', 'topbar', 'flyout', 'dropdown', 'legal', 'copyright', 'trending', 'gdpr', 'consent', 'cookie',
  'subscribe', 'signup', 'signin', 'login', 'popup', 'toolbar', 'utility', 'byline', 'related', 'recommended',
  'recommendations', 'promo', 'skip', 'skiplink', 'searchbar', 'alert', 'notification', 'feedback', 'breadcrumb',
  'breadcrumbs', 'crumbs', 'pagination', 'pager', 'outbrain', 'taboola', 'sponsored', 'advertisement', 'adslot',
  'sharebar', 'announcement', 'minicart', 'wishlist', 'helpbar', 'review', 'reviews', 'comments', 'commentlist', 'respond', 'disqus',
]);
const CHROME_FIRST = new Set(['social', 'cart']);
const CHROME_LAST = new Set(['share', 'sharing', 'modal', 'newsletter', 'country', 'switcher']);
const CHROME_EXACT = new Set(['sidebar', 'ad', 'ads', 'advert', 'share', 'modal', 'newsletter', 'social', 'cart', 'sponsor']);

/** Words that mark content; a name holding one of these is never read as chrome. */
const CONTENT_WORDS = new Set([
  'content', 'article', 'post', 'entry', 'main', 'body', 'story', 'text', 'description', 'recipe', 'prose', 'markdown',
  'answer', 'question', 'message', 'thread', 'topic', 'blog', 'docs', 'documentation', 'page',
]);

const HIDDEN_NAMES = new Set([
  'hidden', 'sr-only', 'visually-hidden', 'screen-reader-text', 'visuallyhidden', 'd-none', 'is-hidden', 'hide', 'clipped',
  'offscreen', 'screenreader-only', 'sr-text', 'u-visually-hidden', 'is-visually-hidden', 'element-invisible',
  'invisible', 'visually-hidden-focusable', 'assistive-text', 'a11y-hidden',
]);

export function nameTokens(el: Element): string[] {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`.split(/\s+/).filter((t) => t !== '');
}

/** Words of a class or id name: `site-header__nav`, `siteHeaderNav` → site, header, nav. */
export function nameParts(token: string): string[] {
  return token
    .split(/[-_:]+|(?<=[a-z])(?=[A-Z])/)
    .filter((p) => p !== '')
    .map((p) => p.toLowerCase());
}

/**
 * Not shown to a reader: hidden attribute, inline display:none, or a hiding utility class.
 * With ignoreInlineStyle, an inline display:none/visibility:hidden does not count.
 */
export function isHidden(el: Element, ignoreInlineStyle = false): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined || a['aria-hidden'] === 'true') return true;
  if (a.type === 'hidden') return true;
  if (!ignoreInlineStyle && isHiddenByInlineStyle(el)) return true;
  const classes = (a.class ?? '').toLowerCase().split(/\s+/);
  // Responsive utility classes (md:block next to hidden) show the element on wide screens.
  if (classes.some((c) => HIDDEN_NAMES.has(c)) && !classes.some((c) => /:(?:block|flex|grid|inline|table|contents)/.test(c))) return true;
  return false;
}

function isHiddenByInlineStyle(el: Element): boolean {
  const style = el.attribs.style;
  return style !== undefined && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Never content. A <noscript> is what a client without scripts sees: kept when it holds real text. */
export function isJunk(el: Element): boolean {
  if (el.name === 'noscript') return textOf(el).length < 200;
  return isSkippedTag(el.name);
}

export type ChromeKind = 'tag' | 'role' | 'name';

/** Why the element looks like chrome, or undefined when it does not. */
export function chromeKind(el: Element): ChromeKind | undefined {
  if (CHROME_TAGS.has(el.name)) return 'tag';
  const role = el.attribs.role?.toLowerCase();
  if (role && CHROME_ROLES.has(role)) return 'role';
  if (el.attribs['aria-modal'] === 'true') return 'role';
  for (const token of nameTokens(el)) {
    const parts = nameParts(token);
    if (parts.length === 0 || parts.some((p) => CONTENT_WORDS.has(p))) continue;
    const first = parts[0];
    const last = parts[parts.length - 1];
    if (parts.length === 1 && CHROME_EXACT.has(first)) return 'name';
    if (CHROME_ANYWHERE.has(first) || CHROME_ANYWHERE.has(last) || CHROME_FIRST.has(first) || CHROME_LAST.has(last)) return 'name';
  }
  return undefined;
}

/** Elements that announce themselves as the page's main content. */
export function isMainLandmark(el: Element): boolean {
  if (el.name === 'main' || el.name === 'article') return true;
  const role = el.attribs.role?.toLowerCase();
  if (role === 'main' || role === 'article') return true;
  const itemprop = el.attribs.itemprop;
  return itemprop === 'articleBody' || itemprop === 'mainEntity' || itemprop === 'text';
}
