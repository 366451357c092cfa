// Chromium's stderr while it starts: the DevTools endpoint line, and a bounded tail for error messages.
const DEVTOOLS_LINE = /^DevTools listening on (ws:\/\/\S+)\s*$/;
const TAIL_CHARS = 4096;

/**
 * Reads stderr chunk by chunk. The endpoint is taken from whole lines only: one read can hold the
 * endpoint followed by kilobytes of D-Bus complaints (a busy reader lets the pipe fill), and a read
 * can end inside the endpoint's URL.
 */
export class ChromiumStderr {
  #tail = '';
  #unfinishedLine = '';

  /** Takes the next chunk; returns the DevTools endpoint when a line in it names one. */
  push(chunk: string): string | undefined {
    this.#tail = (this.#tail + chunk).slice(-TAIL_CHARS);
    const lines = (this.#unfinishedLine + chunk).split('\n');
    this.#unfinishedLine = (lines.pop() ?? '').slice(-TAIL_CHARS);
    for (const line of lines) {
      const match = DEVTOOLS_LINE.exec(line);
      if (match) return match[1];
    }
    return undefined;
  }

  /** The last kilobyte printed, for a message that says why the launch failed. */
  tail(): string {
    return this.#tail.trim().slice(-1000) || '(empty)';
  }
}
