// What else records a page besides the session log (the screencast, rrweb): the session recorder
// attaches each instrument to every page target, before a new page runs or, for pages already
// open, as soon as the instrument is added, and hands it the page's CDP events until the page
// closes or the instrument is removed.

export type SendToPage = (method: string, params?: object) => Promise<unknown>;

export interface PageTarget {
  /** The CDP target ID. */
  targetId: string;
  /** The flattened CDP session of the recorder on this page. */
  sessionId: string;
  send: SendToPage;
}

export interface PageInstrument {
  /** Sets the page up; errors are the instrument's own (the page may have gone). */
  attach(page: PageTarget): Promise<void>;
  onPageEvent(page: PageTarget, method: string, params: Record<string, unknown>): void;
  /** The page closed. */
  detach(page: PageTarget): void;
  /** Undoes `attach` on a page that goes on running (the session turned out not to be recorded). */
  withdraw?(page: PageTarget): Promise<void>;
}
