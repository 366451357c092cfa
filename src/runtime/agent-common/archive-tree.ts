// The tree an archive would create, built entry by entry before anything is written, so links are
// judged by where they really point: a symlink's target is resolved through every link of the
// final tree (`lnk -> .`, `up -> lnk/lnk/../..` leaves the project although its text stays inside).
// Rules: nothing is written through a link; a path is declared once (a directory may repeat);
// hard links name a regular file already in the archive; every symlink, followed to its end,
// stays inside the project.

type Node = { type: 'dir' } | { type: 'file' } | { type: 'symlink'; target: string };

/** Nested links followed while resolving one path before it counts as a loop (Linux's limit). */
const MAX_LINK_HOPS = 40;
/** Links followed in all while resolving one link: bounds the work of links that fan out. */
const MAX_LINKS_FOLLOWED = 1000;

export class ArchiveTree {
  readonly #nodes = new Map<string, Node>();

  /** Adds one entry (a normalized relative path); returns what is wrong with it, if anything. */
  add(path: string, node: Node): string | undefined {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const parent = parts.slice(0, i).join('/');
      const existing = this.#nodes.get(parent);
      if (existing?.type === 'symlink') return `"${path}" would be written through the link "${parent}"`;
      if (existing?.type === 'file') return `"${path}" would be written inside the file "${parent}"`;
      if (!existing) this.#nodes.set(parent, { type: 'dir' });
    }
    const existing = this.#nodes.get(path);
    if (existing && !(existing.type === 'dir' && node.type === 'dir')) return `"${path}" appears more than once in the archive`;
    if (node.type === 'symlink' && node.target.startsWith('/')) return `link "${path}" points to the absolute path "${node.target}"`;
    this.#nodes.set(path, node);
    return undefined;
  }

  /** For a hard link: the target must already be a regular file reached without links. */
  hardLinkProblem(path: string, target: string): string | undefined {
    const parts = target.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      if (this.#nodes.get(parts.slice(0, i).join('/'))?.type === 'symlink') return `hard link "${path}" points through the link "${parts.slice(0, i).join('/')}"`;
    }
    if (this.#nodes.get(target)?.type !== 'file') return `hard link "${path}" must point to a regular file earlier in the archive ("${target}" is not one)`;
    return undefined;
  }

  /** Checks every symlink of the finished tree; returns the first problem. */
  linkProblem(): string | undefined {
    for (const [path, node] of this.#nodes) {
      if (node.type !== 'symlink') continue;
      const outcome = this.#resolve(dirParts(path), node.target, 0, { left: MAX_LINKS_FOLLOWED });
      if (outcome === 'outside') return `link "${path}" points outside the project ("${node.target}", following the links it passes through)`;
      if (outcome === 'loop') return `link "${path}" is part of a link loop ("${node.target}")`;
    }
    return undefined;
  }

  /** Walks `target` from the folder `from`, following links; 'outside' as soon as it climbs above the root. */
  #resolve(from: string[], target: string, hops: number, budget: { left: number }): string[] | 'outside' | 'loop' {
    if (target.startsWith('/')) return 'outside';
    let at = [...from];
    for (const part of target.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (at.length === 0) return 'outside';
        at.pop();
        continue;
      }
      at.push(part);
      const node = this.#nodes.get(at.join('/'));
      if (node?.type !== 'symlink') continue;
      budget.left -= 1;
      if (hops >= MAX_LINK_HOPS || budget.left < 0) return 'loop';
      const next = this.#resolve(at.slice(0, -1), node.target, hops + 1, budget);
      if (typeof next === 'string') return next;
      at = next;
    }
    return at;
  }
}

function dirParts(path: string): string[] {
  return path.split('/').slice(0, -1);
}
