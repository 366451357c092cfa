// A façade stopping while a pod's live-view upgrade is still being authorized: the upgrade must not
// attach after the stop, or the server's close (which waits for every connection, upgraded ones
// included, and closeAllConnections() never touches those) would never end.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { ApiDeps } from '../../src/api/deps.js';
import { LiveHub } from '../../src/api/live-view/live-hub.js';
import { LiveLocator } from '../../src/api/live-view/live-locator.js';
import { acceptLiveViewUpgrades } from '../../src/api/live-view/live-upgrade.js';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import type { Settings } from '../../src/config/settings.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import { issuePodToken } from '../../src/runtime/pod-token.js';
import type { PodObject } from '../../src/schemas/pod.js';
import { Labels, Roles, type InvocationObject } from '../../src/schemas/resources.js';
import { LIVE_CHANNEL_SUFFIX } from '../../src/schemas/live-channel.js';
import { aroundClusterCalls } from '../support/cluster-calls.js';

/** The cluster with reads of Pods held until released: an authorization in flight, on demand. */
function holdingPodReads(cluster: ClusterPort) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const reached = new Promise<void>((resolve) => (held = resolve));
  const port = aroundClusterCalls(cluster, ({ type, method, proceed }) => {
    if (type !== Kinds.Pod || method !== 'get') return proceed();
    held();
    return released.then(proceed);
  });
  return { port, reached, release };
}

describe('live-view upgrades when the façade stops', () => {
  let cluster: ClusterPort;
  const settings = { podTokenSecret: randomBytes(24).toString('hex') } as Settings;

  before(async () => (cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) })));
  after(async () => cluster?.close());

  async function runningPod(): Promise<PodObject> {
    const name = randomUUID();
    const invocation = await cluster.resource<InvocationObject>(Kinds.Invocation).create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name, namespace: 'p' },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() },
    } as InvocationObject);
    const labels = { [Labels.role]: Roles.browserPod, [Labels.invocationName]: invocation.metadata.name };
    return cluster.resource<PodObject>(Kinds.Pod).create(
      newObject<PodObject>(Kinds.Pod, { name: `${name}-a1`, namespace: 'p', labels }, { spec: { nodeName: 'no-such-node', restartPolicy: 'Never', containers: [{ name: 'agent', image: 'img' }] } }),
    );
  }

  it('an upgrade authorized after the stop began is dropped, and the server closes', async () => {
    const pod = await runningPod();
    const { port, reached, release } = holdingPodReads(cluster);
    const log = createLogger('silent');
    const deps = { settings, cluster: port, log, archive: {} as Archive } as ApiDeps;
    const hub = new LiveHub();
    const server: Server = createServer((_req, res) => res.end());
    const upgrades = acceptLiveViewUpgrades(server, new LiveLocator(hub, deps), deps);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const token = issuePodToken(settings.podTokenSecret, { namespace: 'p', name: pod.metadata.name, uid: pod.metadata.uid!, exp: Math.floor(Date.now() / 1000) + 60 });
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/internal/v1/pods/p/${pod.metadata.name}${LIVE_CHANNEL_SUFFIX}`;
    const client = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const outcome = new Promise<string>((resolve) => {
      client.once('open', () => resolve('open'));
      client.once('error', (err) => resolve(`error: ${err.message}`));
      client.once('close', () => resolve('closed'));
    });
    await reached;

    // The façade's stop sequence (src/server/service.ts), with the pod's authorization still in flight.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    hub.closeAll();
    upgrades.closeAll();
    server.closeAllConnections();
    release();

    assert.notEqual(await outcome, 'open', 'the pod channel attached after the stop');
    await closed;
    assert.equal(hub.get('p', pod.metadata.name), undefined);
    client.terminate();
  });
});
