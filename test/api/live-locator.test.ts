// Which replica a running session's live channel is looked up at: the address a replica recorded
// and signed on the Invocation, never one recorded by anyone else, nor its own, nor one of an ended session.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { LiveHub } from '../../src/api/live-view/live-hub.js';
import { LiveLocator } from '../../src/api/live-view/live-locator.js';
import { ReplicaChannel } from '../../src/api/live-view/replica-channel.js';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import type { Settings } from '../../src/config/settings.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import { Annotations, Labels, type InvocationObject } from '../../src/schemas/resources.js';

describe('live locator: the recorded holder of a session\'s channel', () => {
  let cluster: ClusterPort;
  const settings = { podTokenSecret: randomBytes(24).toString('hex') } as Settings;
  const locatorAt = (self: string | undefined, secret = settings) => {
    const locator = new LiveLocator(new LiveHub(), { cluster, archive: {} as Archive, settings: secret, log: createLogger('silent') });
    locator.announceAs(self);
    return locator;
  };

  before(async () => (cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) })));
  after(async () => cluster?.close());

  async function runningInvocation(): Promise<InvocationObject> {
    const sessionId = randomUUID();
    return cluster.resource<InvocationObject>(Kinds.Invocation).create({
      apiVersion: 'browserfn.dev/v1alpha1',
      kind: 'Invocation',
      metadata: { name: randomUUID(), namespace: 'p', labels: { [Labels.sessionId]: sessionId } },
      spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId },
    } as InvocationObject);
  }

  const annotate = async (invocation: InvocationObject, value: string) => {
    const invocations = cluster.resource<InvocationObject>(Kinds.Invocation);
    const current = (await invocations.get('p', invocation.metadata.name))!;
    await invocations.update({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [Annotations.liveReplica]: value } } });
  };

  it('finds the replica that recorded itself, through a replica channel, and nothing once the session ended', async () => {
    const invocation = await runningInvocation();
    await locatorAt('http://10.0.0.1:8080').attached(invocation);
    const found = await locatorAt('http://10.0.0.2:8080').find('p', invocation.spec.sessionId);
    assert.ok(found instanceof ReplicaChannel);
    assert.equal(found.holder, 'http://10.0.0.1:8080');
    assert.equal(await locatorAt('http://10.0.0.1:8080').find('p', invocation.spec.sessionId), undefined, 'the holder itself never asks itself');
    const invocations = cluster.resource<InvocationObject>(Kinds.Invocation);
    const current = (await invocations.get('p', invocation.metadata.name))!;
    await invocations.updateStatus({ ...current, status: { phase: 'COMPLETED' } as InvocationObject['status'] });
    assert.equal(await locatorAt('http://10.0.0.3:8080').find('p', invocation.spec.sessionId), undefined);
  });

  it('never trusts an address a replica did not sign: forged, unsigned, signed with another key, or not http', async () => {
    const invocation = await runningInvocation();
    const other = locatorAt('http://10.0.0.2:8080');
    for (const value of ['http://169.254.169.254', 'http://169.254.169.254 forged', `http://169.254.169.254 ${'A'.repeat(43)}`]) {
      await annotate(invocation, value);
      assert.equal(await other.find('p', invocation.spec.sessionId), undefined, value);
    }
    await locatorAt('http://10.0.0.9:8080', { podTokenSecret: 'another key' } as Settings).attached(invocation);
    assert.equal(await other.find('p', invocation.spec.sessionId), undefined, 'signed with another key');
    // A genuine signature moved onto another address does not carry over.
    await locatorAt('http://10.0.0.1:8080').attached(invocation);
    const signature = (await cluster.resource<InvocationObject>(Kinds.Invocation).get('p', invocation.metadata.name))!.metadata.annotations![Annotations.liveReplica]!.split(' ')[1];
    await annotate(invocation, `http://169.254.169.254 ${signature}`);
    assert.equal(await other.find('p', invocation.spec.sessionId), undefined, 'a signature of another address');
  });
});
