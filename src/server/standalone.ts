// `browserfn serve`: the façade, the controllers and the local node agent in one process, over the
// embedded store. Pods run as local processes; user code still runs only inside them.
import type { Settings } from '../config/settings.js';
import type { Logger } from '../config/logger.js';
import { startService, type RunningService, type ServiceOptions } from './service.js';

export const LOCAL_NODE_NAME = 'local';

/** `local` adds to the local pods (`browserfn dev`: their environment and output). */
export function startStandalone(settings: Settings, log?: Logger, local: Pick<ServiceOptions, 'podEnv' | 'onPodOutput'> = {}): Promise<RunningService> {
  return startService(
    settings,
    { backend: 'embedded', api: true, controllers: true, nodeAgent: true, nodeName: LOCAL_NODE_NAME, image: 'browserfn:local', ...local },
    log,
  );
}
