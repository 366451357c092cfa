// What a part of the page (the whole cleaned page, or one repeated item of a listing) says in
// plain sight: "Label: value" pairs from tables, definition lists and text, and elements whose
// class, id, itemprop or data-test names carry a property's name.
import { isElement, textOf, walk, type AnyNode, type Document, type Element } from '../convert/dom.js';
import { collectTextBlocks } from '../convert/text-blocks.js';
import { compactName, nameWords } from './property-names.js';

export interface PageScope {
  root: Element | Document;
  /** Compacted label → values, in page order. */
  labels: Map<string, string[]>;
  /** Compacted class/id/itemprop name or name part → elements, in page order. */
  named: Map<string, Element[]>;
}

const NAME_ATTRIBUTES = ['class', 'id', 'itemprop', 'data-testid', 'data-test', 'data-qa', 'data-automation', 'data-hook', 'name'];

export function scopeOf(root: Element | Document): PageScope {
  const labels = new Map<string, string[]>();
  const named = new Map<string, Element[]>();
  const addLabel = (label: string, value: string): void => {
    const key = compactName(label.replace(/[:：]\s*$/, ''));
    const v = value.replace(/\s+/g, ' ').trim();
    if (!key || !v || key.length > 40 || v.length > 500) return;
    const list = labels.get(key) ?? [];
    list.push(v);
    labels.set(key, list);
  };
  walk(root, (node) => {
    if (!isElement(node)) return;
    if (node.name === 'script' || node.name === 'style') return false;
    for (const attribute of NAME_ATTRIBUTES) {
      const value = node.attribs[attribute];
      if (!value || value.length > 300) continue;
      for (const token of value.split(/\s+/)) {
        if (!token || token.length > 60) continue;
        const keys = new Set([compactName(token), ...nameWords(token)]);
        for (const key of keys) {
          const list = named.get(key) ?? [];
          if (list.length < 50) list.push(node);
          named.set(key, list);
        }
      }
    }
    if (node.name === 'tr') {
      const cells = node.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
      if (cells.length === 2 && !isHeaderRow(node, cells)) addLabel(textOf(cells[0]), textOf(cells[1]));
    } else if (node.name === 'dt') {
      const dd = nextElementSibling(node);
      if (dd?.name === 'dd') addLabel(textOf(node), textOf(dd));
    }
  });
  for (const block of collectTextBlocks(root)) {
    const match = /^([^:：]{1,40})[:：]\s*(.+)$/.exec(block.text);
    if (match) addLabel(match[1], match[2]);
  }
  return { root, labels, named };
}

/** Column headings ("Name | Weight"), not a label and its value: all <th> cells, or a row of <thead>. */
function isHeaderRow(row: Element, cells: Element[]): boolean {
  if (cells.every((cell) => cell.name === 'th')) return true;
  return row.parent !== null && isElement(row.parent) && row.parent.name === 'thead';
}

function nextElementSibling(node: AnyNode): Element | undefined {
  for (let n = node.next; n; n = n.next) if (isElement(n)) return n;
  return undefined;
}

/** The value an element stands for: content/value/datetime attributes first, then its text. */
export function elementValue(el: Element, wantUrl = false): string | undefined {
  const a = el.attribs;
  if (wantUrl) {
    const url = a.href ?? a.src ?? a['data-src'] ?? a.content;
    if (url) return url;
  }
  for (const attribute of ['content', 'data-price', 'data-value', 'value', 'datetime']) {
    if (a[attribute] !== undefined && a[attribute].trim() !== '' && el.name !== 'input') return a[attribute];
    if (attribute === 'value' && el.name === 'input' && a.type === 'hidden' && a.value) return a.value;
  }
  const text = textOf(el);
  return text || undefined;
}
