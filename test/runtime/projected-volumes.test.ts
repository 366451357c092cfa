// The ServiceAccount token volume as the node agent fills it: a TokenRequest for the pod's own
// ServiceAccount bound to the pod, with the volume's audience and lifetime (at least the API
// server's minimum), the namespace's CA and the namespace; the next request is due at 80% of the
// token's lifetime. A backend that issues no tokens makes the pod fail to start, saying why.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort, TokenRequestSpec } from '../../src/cluster/port.js';
import { ContainerConfigError } from '../../src/runtime/node-agent/container-env.js';
import { fillProjectedVolume } from '../../src/runtime/node-agent/projected-volumes.js';
import type { PodObject, Volume } from '../../src/schemas/pod.js';

const volume: Volume = {
  name: 'kube-api-access-x1',
  projected: {
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607, audience: 'api' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};

describe('node agent: projected ServiceAccount token volumes', () => {
  const folder = mkdtempSync(join(tmpdir(), 'browserfn-projected-'));
  let cluster: ClusterPort;
  const pod: PodObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-1', namespace: 'team', uid: 'uid-1' }, spec: { serviceAccountName: 'bfn-api', containers: [] } };

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    await cluster.resource(Kinds.ConfigMap).create(newObject(Kinds.ConfigMap, { name: 'kube-root-ca.crt', namespace: 'team' }, { data: { 'ca.crt': 'CA PEM' } }));
  });
  after(async () => {
    await cluster.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes the TokenRequest token of the pod\'s ServiceAccount, the CA and the namespace; the next request is due at 80%', async () => {
    const requests: { namespace: string; serviceAccount: string; spec: TokenRequestSpec }[] = [];
    const lifetimeSeconds = 3607;
    const withTokens: ClusterPort = Object.assign(Object.create(cluster) as ClusterPort, {
      podCredentials: {
        apiServer: new URL('https://127.0.0.1:6443'),
        requestToken: async (namespace: string, serviceAccount: string, spec: TokenRequestSpec) => {
          requests.push({ namespace, serviceAccount, spec });
          return { token: `token-${requests.length}`, expirationTimestamp: new Date(Date.now() + lifetimeSeconds * 1000).toISOString() };
        },
      },
    });
    const refreshMs = await fillProjectedVolume(withTokens, pod, volume, folder);
    assert.deepEqual(requests, [{ namespace: 'team', serviceAccount: 'bfn-api', spec: { audiences: ['api'], expirationSeconds: 3607, boundPod: { name: 'api-1', uid: 'uid-1' } } }]);
    assert.equal(readFileSync(join(folder, 'token'), 'utf8'), 'token-1');
    assert.equal(readFileSync(join(folder, 'ca.crt'), 'utf8'), 'CA PEM');
    assert.equal(readFileSync(join(folder, 'namespace'), 'utf8'), 'team');
    assert.ok(refreshMs !== undefined && Math.abs(refreshMs - lifetimeSeconds * 800) < 5_000, `refresh after ${refreshMs} ms`);
    await fillProjectedVolume(withTokens, pod, volume, folder);
    assert.equal(readFileSync(join(folder, 'token'), 'utf8'), 'token-2', 'a refresh replaces the token');
  });

  it('asks for at least the API server\'s minimum lifetime', async () => {
    let asked: number | undefined;
    const withTokens: ClusterPort = Object.assign(Object.create(cluster) as ClusterPort, {
      podCredentials: {
        apiServer: new URL('https://127.0.0.1:6443'),
        requestToken: async (_ns: string, _sa: string, spec: TokenRequestSpec) => {
          asked = spec.expirationSeconds;
          return { token: 't', expirationTimestamp: new Date(Date.now() + 600_000).toISOString() };
        },
      },
    });
    const short: Volume = { name: 'short', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 60 } }] } };
    await fillProjectedVolume(withTokens, pod, short, folder);
    assert.equal(asked, 600);
  });

  it('fails the pod\'s start when the backend issues no tokens (the embedded store)', async () => {
    await assert.rejects(fillProjectedVolume(cluster, pod, volume, folder), (err: unknown) => err instanceof ContainerConfigError && /no ServiceAccount tokens/.test(err.message));
  });
});
