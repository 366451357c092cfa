// React streaming server rendering (Next.js App Router, GitBook, ...) sends a page's late parts as
// hidden segments (`<div hidden id="S:3">`) at the end of the body, each followed by an inline
// script that moves it into place: `$RC("B:3","S:3")` replaces a Suspense boundary's fallback
// (from `<template id="B:3">` up to the boundary's closing `<!--/$-->`) with the segment's
// children; `$RS("S:4","P:4")` puts a segment's children in place of `<template id="P:4">`.
// A browser runs those scripts before anyone reads the page; we replay them on the parsed tree,
// in document order, so the content stands where the reader sees it. A segment whose script is
// absent stays where it is (hidden).
import type { ParentNode } from 'domhandler';
import { childrenOf, isElement, isText, parseHtml, walk, type AnyNode, type Document, type Element } from './dom.js';

/** Real pages send dozens; the cap bounds the work of a page made of nothing else. */
const MAX_INSTRUCTIONS = 2000;

/**
 * `$RC("B:0","S:0")`; `$RR` is the same move once stylesheets have loaded; `$RS("S:1","P:1")`.
 * Only as React writes them: double quotes, and its ids (after the app's identifier prefix, if
 * any), so a page's own text (a comment quoted in a data script) cannot move other elements.
 */
const INSTRUCTION = /\$R([CRS])\("([^"\\]{0,80}[BS]:[0-9a-f]{1,16})","([^"\\]{0,80}[SP]:[0-9a-f]{1,16})"/g;
/** Scripts a browser runs: no type, or a JavaScript one (JSON and templates in <script> run nothing). */
const RUNNABLE_SCRIPT_TYPES = new Set(['', 'text/javascript', 'application/javascript', 'module']);

interface Instruction {
  kind: 'boundary' | 'segment';
  /** The boundary's `<template id="B:n">` or the placeholder `<template id="P:n">`. */
  targetId: string;
  segmentId: string;
}

/** The page as a browser shows it once React's inline streaming scripts have run. */
export function parseRenderedHtml(html: string): Document {
  const doc = parseHtml(html);
  applyStreamingInstructions(doc);
  return doc;
}

function applyStreamingInstructions(doc: Document): void {
  const byId = new Map<string, Element>();
  const instructions: Instruction[] = [];
  walk(doc, (node) => {
    if (!isElement(node)) return;
    const id = node.attribs.id;
    // Like getElementById: the first element in document order.
    if (id !== undefined && !byId.has(id)) byId.set(id, node);
    if (node.name === 'script') {
      if (RUNNABLE_SCRIPT_TYPES.has((node.attribs.type ?? '').trim().toLowerCase())) collectInstructions(scriptText(node), instructions);
      return false;
    }
  });
  for (const instruction of instructions.slice(0, MAX_INSTRUCTIONS)) {
    const segment = byId.get(instruction.segmentId);
    const target = byId.get(instruction.targetId);
    if (!segment || !target || !isAttached(segment, doc) || !isAttached(target, doc)) continue;
    // A target inside its own segment would become its own descendant: the browser's DOM refuses
    // the move (HierarchyRequestError) and so does this, or the tree turns into a cycle.
    if (isInside(target, segment)) continue;
    if (instruction.kind === 'boundary') completeBoundary(target, segment);
    else completeSegment(target, segment);
  }
}

function collectInstructions(script: string, into: Instruction[]): void {
  if (!script.includes('$R')) return;
  for (const [, letter, first, second] of script.matchAll(INSTRUCTION)) {
    // $RS("S:…","P:…") names the segment first, $RC/$RR("B:…","S:…") the boundary first.
    if (letter === 'S' && /S:[0-9a-f]+$/.test(first) && /P:[0-9a-f]+$/.test(second)) into.push({ kind: 'segment', segmentId: first, targetId: second });
    else if (letter !== 'S' && /B:[0-9a-f]+$/.test(first) && /S:[0-9a-f]+$/.test(second)) into.push({ kind: 'boundary', targetId: first, segmentId: second });
  }
}

function scriptText(script: Element): string {
  return childrenOf(script)
    .map((child) => (isText(child) ? child.data : ''))
    .join('');
}

/**
 * Replaces the fallback of the boundary that `marker` opens (the marker itself through the nodes
 * before the matching `<!--/$-->`, skipping nested boundaries) with the segment's children.
 */
function completeBoundary(marker: Element, segment: Element): void {
  const parent = marker.parent;
  const opening = marker.prev;
  if (!parent || !opening || opening.type !== 'comment' || !isBoundaryStart(opening.data)) return;
  // Out of the tree first: a segment among the fallback's nodes would shift the range below.
  const content = detachChildren(segment);
  const siblings = childrenOf(parent);
  const start = siblings.indexOf(marker);
  let end = start;
  for (let depth = 0; end < siblings.length; end++) {
    const node = siblings[end];
    if (node.type !== 'comment') continue;
    if (node.data === '/$') {
      if (depth === 0) break;
      depth--;
    } else if (isBoundaryStart(node.data)) depth++;
  }
  replaceChildren(parent, start, end, content);
  opening.data = '$';
}

/** Puts the segment's children where the placeholder stands. */
function completeSegment(placeholder: Element, segment: Element): void {
  const parent = placeholder.parent;
  if (!parent) return;
  const content = detachChildren(segment);
  const at = childrenOf(parent).indexOf(placeholder);
  if (at >= 0) replaceChildren(parent, at, at + 1, content);
}

function isBoundaryStart(data: string): boolean {
  // Completed, pending, client-rendered and (React 19) queued-for-reveal boundaries.
  return data === '$' || data === '$?' || data === '$!' || data === '$~';
}

/** Removes the segment from the tree and returns its children, detached. */
function detachChildren(segment: Element): AnyNode[] {
  const parent = segment.parent;
  if (parent) {
    const at = childrenOf(parent).indexOf(segment);
    replaceChildren(parent, at, at + 1, []);
  }
  const children = childrenOf(segment);
  segment.children = [];
  return children;
}

/** Replaces parent's children [from, to) with `nodes`, keeping the tree's links consistent. */
function replaceChildren(parent: ParentNode, from: number, to: number, nodes: AnyNode[]): void {
  const siblings = childrenOf(parent);
  for (const removed of siblings.splice(from, to - from, ...nodes)) {
    removed.parent = null;
    removed.prev = null;
    removed.next = null;
  }
  for (const node of nodes) node.parent = parent;
  const first = Math.max(0, from - 1);
  const last = Math.min(siblings.length, from + nodes.length + 1);
  for (let i = first; i < last; i++) {
    siblings[i].prev = siblings[i - 1] ?? null;
    siblings[i].next = siblings[i + 1] ?? null;
  }
}

function isInside(node: AnyNode, ancestor: AnyNode): boolean {
  for (let at: AnyNode | null = node; at; at = at.parent) if (at === ancestor) return true;
  return false;
}

function isAttached(node: AnyNode, doc: Document): boolean {
  let top: AnyNode = node;
  while (top.parent) top = top.parent;
  return top === doc;
}
