// How many fetches run at once, per project and in total. Over the limit a fetch is refused at
// once (429) rather than queued: the caller decides whether to retry.
export class ConcurrencyGate {
  private total = 0;
  private readonly perProject = new Map<string, number>();

  constructor(
    private readonly maxPerProject: number,
    private readonly maxTotal: number,
  ) {}

  /** A release function, or undefined when a limit is reached; names the limit hit. */
  tryEnter(project: string): { release: () => void } | { limit: 'project' | 'total'; max: number } {
    const running = this.perProject.get(project) ?? 0;
    if (running >= this.maxPerProject) return { limit: 'project', max: this.maxPerProject };
    if (this.total >= this.maxTotal) return { limit: 'total', max: this.maxTotal };
    this.perProject.set(project, running + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perProject.get(project) ?? 1) - 1;
        if (left === 0) this.perProject.delete(project);
        else this.perProject.set(project, left);
      },
    };
  }
}
