// A pod's Ready condition, as a kubelet decides it: when its containers run and each readinessProbe
// (httpGet, the only kind the chart uses) answers 2xx or 3xx at the pod's address. Deployments
// count only ready pods as available, so a rolling update waits for them.
import type { Container } from '../../schemas/pod.js';

const PERIOD_MS = 500;
const TIMEOUT_MS = 2_000;

/**
 * Resolves once every probe passes; stops trying when `cancelled` says so (resolves false). A pod
 * without an address the node reaches (its own network namespace) is ready when it runs.
 */
export async function waitUntilReady(containers: Container[], podIP: string | undefined, cancelled: () => boolean): Promise<boolean> {
  if (!podIP) return !cancelled();
  const targets = containers.flatMap((c) => {
    const probe = c.readinessProbe?.httpGet;
    if (!probe) return [];
    const port = typeof probe.port === 'number' ? probe.port : c.ports?.find((p) => p.name === probe.port)?.containerPort;
    return port === undefined ? [] : [`http://${podIP}:${port}${probe.path ?? '/'}`];
  });
  for (const url of targets) {
    while (!(await passes(url))) {
      if (cancelled()) return false;
      await new Promise((resolve) => setTimeout(resolve, PERIOD_MS));
    }
  }
  return !cancelled();
}

async function passes(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    return response.status >= 200 && response.status < 400;
  } catch {
    return false;
  }
}
