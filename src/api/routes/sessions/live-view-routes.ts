// The routes of live view and session metrics, which reach running sessions through the live
// locator, and those other API replicas call to reach the channels this one holds.
import type { RouteDefinition } from '../../route.js';
import type { LiveLocator } from '../../live-view/live-locator.js';
import { replicaLiveHttp } from '../replicas/replica-live-http.js';
import { replicaLiveMetrics } from '../replicas/replica-live-metrics.js';
import { sessionsDebug } from './sessions-debug.js';
import { sessionsLiveAssets } from './sessions-live-assets.js';
import { sessionsMetrics } from './sessions-metrics.js';

export const liveViewRoutes = (locator: LiveLocator): RouteDefinition[] => [
  sessionsDebug(locator),
  sessionsMetrics(locator),
  sessionsLiveAssets(locator),
  replicaLiveHttp(locator.hub),
  replicaLiveMetrics(locator.hub),
];
