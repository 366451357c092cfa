import type { ClusterPort } from '../cluster/port.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../config/logger.js';
import type { Metrics } from '../config/metrics.js';
import type { Archive } from '../functions/archived/archive.js';
import type { WaitingInvocations } from '../functions/waiting-invocations.js';

/** What every route handler may use. Feature services are built from these by the feature folders. */
export interface ApiDeps {
  settings: Settings;
  cluster: ClusterPort;
  log: Logger;
  metrics: Metrics;
  /** Finished invocations and builds once they left the cluster store. */
  archive: Archive;
  /** Counts each project's waiting invocations for the queue cap. */
  waitingInvocations: WaitingInvocations;
}
