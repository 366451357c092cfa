// The routes of live view and session metrics, which reach running sessions through the live hub.
import type { RouteDefinition } from '../../route.js';
import type { LiveHub } from '../../live-view/live-hub.js';
import { sessionsDebug } from './sessions-debug.js';
import { sessionsLiveAssets } from './sessions-live-assets.js';
import { sessionsMetrics } from './sessions-metrics.js';

export const liveViewRoutes = (hub: LiveHub): RouteDefinition[] => [sessionsDebug(hub), sessionsMetrics(hub), sessionsLiveAssets(hub)];
