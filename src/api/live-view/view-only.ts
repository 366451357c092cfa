// What a view-only viewer may send: CDP commands that read the page (its DOM, styles, layout,
// a screencast) or subscribe to events, never ones that navigate, evaluate, type, click or change
// anything. Everything else is answered with an error and never reaches the browser.

const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'DOM.enable',
  'DOM.disable',
  'DOM.getDocument',
  'DOM.getFlattenedDocument',
  'DOM.describeNode',
  'DOM.requestChildNodes',
  'DOM.querySelector',
  'DOM.querySelectorAll',
  'DOM.getOuterHTML',
  'DOM.getBoxModel',
  'DOM.getNodeForLocation',
  'CSS.enable',
  'CSS.disable',
  'CSS.getComputedStyleForNode',
  'CSS.getMatchedStylesForNode',
  'CSS.getInlineStylesForNode',
  'CSS.getStyleSheetText',
  'Page.enable',
  'Page.disable',
  'Page.getFrameTree',
  'Page.getResourceTree',
  'Page.getLayoutMetrics',
  'Page.getNavigationHistory',
  'Page.captureScreenshot',
  'Page.startScreencast',
  'Page.stopScreencast',
  'Page.screencastFrameAck',
  'Network.enable',
  'Network.disable',
  'Log.enable',
  'Log.disable',
  'Performance.enable',
  'Performance.disable',
  'Performance.getMetrics',
  'Target.getTargets',
  'Target.getTargetInfo',
  'Target.setDiscoverTargets',
  'Target.attachToTarget',
  'Target.detachFromTarget',
  'Inspector.enable',
  'Schema.getDomains',
]);

export interface RefusedCommand {
  /** The CDP error reply to send back to the viewer. */
  reply: string;
}

/** Undefined when the message may go to the browser; otherwise the error to answer the viewer with. */
export function refuseForViewOnly(message: string): RefusedCommand | undefined {
  let command: { id?: unknown; method?: unknown; sessionId?: unknown };
  try {
    command = JSON.parse(message) as typeof command;
  } catch {
    return { reply: JSON.stringify({ error: { code: -32700, message: 'Not JSON' } }) };
  }
  if (typeof command.method === 'string' && READ_ONLY_COMMANDS.has(command.method)) return undefined;
  const error = { code: -32601, message: `${String(command.method)} is not allowed in a view-only live view` };
  return { reply: JSON.stringify({ id: command.id, error, ...(typeof command.sessionId === 'string' ? { sessionId: command.sessionId } : {}) }) };
}
