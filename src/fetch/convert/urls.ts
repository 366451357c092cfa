// Makes href/src absolute against the page's final URL, honouring the first <base href>.
import { findFirst, type Document, type Element } from './dom.js';

export function documentBase(doc: Document, pageUrl: string | undefined): URL | undefined {
  let page: URL | undefined;
  try {
    page = pageUrl ? new URL(pageUrl) : undefined;
  } catch {
    page = undefined;
  }
  const base = findFirst(doc, (el) => el.name === 'base' && typeof el.attribs.href === 'string');
  if (base) {
    try {
      return new URL(base.attribs.href.trim(), page);
    } catch {
      // An unusable <base href> is ignored, as browsers do.
    }
  }
  return page;
}

const ALLOWED_LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:', 'tel:', 'ftp:']);

/** An absolute link target, or undefined for script links, empty links and unparsable ones. */
export function absoluteLink(raw: string | undefined, base: URL | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || value === '#') return undefined;
  try {
    const url = new URL(value, base);
    return ALLOWED_LINK_SCHEMES.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** An absolute image URL; inline data: images are dropped (they are payload, not content). */
export function absoluteImage(raw: string | undefined, base: URL | undefined): string | undefined {
  const value = raw?.trim();
  if (!value || value.startsWith('data:')) return undefined;
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The best source of an <img>: the widest srcset candidate, then lazy-loading attributes, then src. */
export function imageSource(img: Element): string | undefined {
  const a = img.attribs;
  const srcset = a.srcset ?? a['data-srcset'];
  const fromSet = srcset ? widestCandidate(srcset) : undefined;
  const candidates = [fromSet, a['data-src'], a['data-lazy-src'], a['data-original'], a.src];
  return candidates.find((c) => c !== undefined && c.trim() !== '' && !c.trim().startsWith('data:'));
}

function widestCandidate(srcset: string): string | undefined {
  let best: string | undefined;
  let bestSize = -1;
  // Candidates are "url [descriptor]" separated by commas; URLs may themselves hold commas,
  // so split on commas followed by whitespace.
  for (const part of srcset.split(/,\s+/)) {
    const [url, descriptor = '1x'] = part.trim().split(/\s+/);
    if (!url) continue;
    const size = parseFloat(descriptor) * (descriptor.endsWith('x') ? 1000 : 1);
    if (Number.isFinite(size) && size > bestSize) {
      best = url;
      bestSize = size;
    }
  }
  return best;
}
