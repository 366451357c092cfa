// An informer scoped to namespaces (BROWSERFN_WATCH_NAMESPACES, the chart's project namespaces)
// sees only those namespaces and never asks across the cluster, so Roles in the project
// namespaces are all the operator needs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject, type KubeObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { Informer } from '../../src/controller/runtime/informer.js';
import { Manager } from '../../src/controller/runtime/manager.js';
import { loadSettings } from '../../src/config/settings.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aroundClusterCalls } from '../support/cluster-calls.js';
import { waitFor } from '../support/service.js';

const configMap = (namespace: string, name: string): KubeObject => newObject<KubeObject>(Kinds.ConfigMap, { name, namespace }, { data: { a: 'b' } });

/** The cluster, recording the namespace of every list and watch (undefined: across the cluster). */
function recording(cluster: ClusterPort, asked: (string | undefined)[]): ClusterPort {
  return aroundClusterCalls(cluster, ({ method, args, proceed }) => {
    if (method === 'list' || method === 'watch') asked.push(args[0] as string | undefined);
    return proceed();
  });
}

describe('informer scoped to namespaces', () => {
  let cluster: ClusterPort;
  const log = createLogger('silent');

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  afterEach(async () => {
    await cluster.close();
  });

  it('lists and watches each namespace given, sees nothing of the others, and never asks across the cluster', async () => {
    const configMaps = cluster.resource(Kinds.ConfigMap);
    for (const ns of ['team-a', 'team-b', 'other']) await configMaps.create(configMap(ns, 'before'));
    const asked: (string | undefined)[] = [];
    const informer = new Informer(recording(cluster, asked), Kinds.ConfigMap, log, { namespaces: ['team-a', 'team-b'] });
    informer.start();
    try {
      await informer.waitForSync();
      assert.deepEqual(informer.list().map((cm) => `${cm.metadata.namespace}/${cm.metadata.name}`).sort(), ['team-a/before', 'team-b/before']);
      for (const ns of ['other', 'team-b', 'team-a']) await configMaps.create(configMap(ns, 'after'));
      await waitFor('the new ConfigMaps of both namespaces', async () => (informer.get('team-a', 'after') && informer.get('team-b', 'after')) || undefined, 10_000);
      assert.equal(informer.get('other', 'after'), undefined);
      assert.equal(informer.get('other', 'before'), undefined);
      await configMaps.delete('team-b', 'before');
      await waitFor('the deletion in team-b', async () => (informer.get('team-b', 'before') ? undefined : true), 10_000);
      assert.ok(asked.length >= 4, `expected a list and a watch per namespace, got ${JSON.stringify(asked)}`);
      assert.deepEqual([...new Set(asked)].sort(), ['team-a', 'team-b']);
    } finally {
      await informer.stop();
    }
  });

  it('is what the manager gives every controller when namespaces are set, and BROWSERFN_WATCH_NAMESPACES sets them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bfn-watch-ns-'));
    const cleanUp = (): void => rmSync(dataDir, { recursive: true, force: true });
    const settings = loadSettings({ dataDir, env: { BROWSERFN_API_KEY: 'k', BROWSERFN_POD_TOKEN_SECRET: 's', BROWSERFN_WATCH_NAMESPACES: 'team-a, team-b,team-a' } });
    assert.deepEqual(settings.watchNamespaces, ['team-a', 'team-b']);
    assert.equal(loadSettings({ dataDir, env: { BROWSERFN_API_KEY: 'k', BROWSERFN_POD_TOKEN_SECRET: 's' } }).watchNamespaces, undefined);
    assert.throws(() => loadSettings({ dataDir, env: { BROWSERFN_API_KEY: 'k', BROWSERFN_POD_TOKEN_SECRET: 's', BROWSERFN_WATCH_NAMESPACES: 'team-a,Bad_Name' } }), /BROWSERFN_WATCH_NAMESPACES must be namespace names separated by commas, got "Bad_Name"/);

    const asked: (string | undefined)[] = [];
    const manager = new Manager(recording(cluster, asked), log, undefined, settings.watchNamespaces);
    const informer = manager.informerFor(Kinds.Pod);
    informer.start();
    try {
      await informer.waitForSync();
      assert.deepEqual([...new Set(asked)].sort(), ['team-a', 'team-b']);
    } finally {
      await informer.stop();
      cleanUp();
    }
  });
});
