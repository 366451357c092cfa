// What changes how a browser is launched, read from an invocation's sessionConfig. Two launches with
// the same shape are interchangeable, so an invocation may run on a pool member started that way.
// Settings the browser does not launch with (userMetadata, timeouts, keepAlive) never split pools.
import { createHash } from 'node:crypto';
import type { LaunchShape, PodResources } from './resources.js';
import { proxyRoutes } from './session-proxies.js';

export function launchShapeOf(sessionConfig: Record<string, unknown> | undefined): LaunchShape {
  const viewport = (sessionConfig?.browserSettings as { viewport?: { width?: number; height?: number } } | undefined)?.viewport;
  return {
    ...(viewport?.width && viewport.height ? { viewport: { width: viewport.width, height: viewport.height } } : {}),
    ...(proxyRoutes(sessionConfig).length > 0 ? { proxied: true } : {}),
  };
}

/** A label-safe digest of a launch shape (and a member's resources and preloaded packages): equal launches, equal hashes. */
export function launchHash(shape: LaunchShape, resources?: PodResources, preload?: string[], preloadArtifact?: string): string {
  const canonical = JSON.stringify({
    viewport: shape.viewport ? [shape.viewport.width, shape.viewport.height] : null,
    ...(shape.proxied ? { proxied: true } : {}),
    // A CPU limit only when set, so pools that name none keep the hashes their members were made with.
    resources: resources ? [resources.requests?.cpu ?? null, resources.requests?.memory ?? null, resources.limits?.memory ?? null, ...(resources.limits?.cpu ? [resources.limits.cpu] : [])] : null,
    // Only when set, so pools that name none keep the hashes their members were made with.
    ...(preload ? { preload: [...preload].sort() } : {}),
    ...(preloadArtifact ? { preloadArtifact } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

export const sameLaunch = (a: LaunchShape, b: LaunchShape): boolean => launchHash(a) === launchHash(b);

/** The window size as the agent takes it (BROWSERFN_VIEWPORT). */
export const viewportValue = (shape: LaunchShape): string | undefined => (shape.viewport ? `${shape.viewport.width}x${shape.viewport.height}` : undefined);
