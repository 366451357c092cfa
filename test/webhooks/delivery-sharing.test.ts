// One project's deliveries to a receiver that never answers take at most `stepsPerProject` of the
// delivery workers: its other deliveries are parked, not sent, and another project's delivery goes
// out at once; each parked delivery is put back in the queue as one of its project's steps ends.
// Real embedded store, real sender, real receivers on 127.0.0.1.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import type { Request } from '../../src/controller/runtime/controller.js';
import { WebhookDeliveryReconciler } from '../../src/controller/reconcilers/webhook-delivery.js';
import type { InvocationObject } from '../../src/schemas/resources.js';
import { deliveryName, readDelivery } from '../../src/webhooks/deliveries.js';
import { recordEvents } from '../../src/webhooks/emit.js';
import { invocationEvents } from '../../src/webhooks/events.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { loadWebhookSettings } from '../../src/webhooks/settings.js';
import { createWebhook, getWebhook } from '../../src/webhooks/store.js';
import { startHoldServer, type HoldServer } from '../support/hold-server.js';
import { startReceiver, type Receiver } from './receiver.js';

const STEPS_PER_PROJECT = 3;

describe('webhook deliveries shared between projects (embedded store)', () => {
  let cluster: ClusterPort;
  let sender: WebhookSender;
  let silent: HoldServer;
  let receiver: Receiver;
  const settings = { ...loadWebhookSettings({}), allowPrivate: true, timeoutMs: 60_000 };

  before(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    sender = new WebhookSender(settings);
    silent = await startHoldServer();
    receiver = await startReceiver();
  });
  after(async () => {
    silent.release();
    await sender.close();
    await silent.close();
    await receiver.close();
    await cluster.close();
  });

  /** `count` completed invocations' deliveries to `endpoint` in `project`: their names. */
  async function deliveriesTo(project: string, endpoint: string, count: number): Promise<string[]> {
    const { record } = await createWebhook(cluster, project, { endpoint, eventTypes: ['functions.invocations.completed'] }, true);
    const webhooks = [await getWebhook(cluster, project, record.id)];
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const ended = newObject<InvocationObject>(
        Kinds.Invocation,
        { name: `inv-${i}`, namespace: project, uid: randomUUID(), annotations: { 'browserfn.dev/created-at': '2030-01-01T00:00:00.000Z' } },
        {
          spec: { functionName: 'f', functionUid: randomUUID(), versionId: randomUUID(), bundleConfigMap: 'b', params: {}, sessionConfig: {}, timeoutSeconds: 60, sessionId: randomUUID() },
          status: { phase: 'COMPLETED', startedAt: '2030-01-01T00:00:01.000Z', endedAt: '2030-01-01T00:00:02.000Z' },
        },
      );
      const events = invocationEvents(ended).filter((e) => e.type === 'functions.invocations.completed');
      await recordEvents(cluster, events, { kind: 'Invocation', name: ended.metadata.name }, webhooks, Date.now());
      names.push(deliveryName(events[0]!.id, record.id));
    }
    return names;
  }

  const attemptsOf = async (project: string, name: string) => readDelivery((await cluster.resource(Kinds.ConfigMap).get(project, name))!)!.attempts.length;

  it("sends at most its share of one project's deliveries at once, and another project's at once", async () => {
    const requeued: Request[] = [];
    const reconciler = new WebhookDeliveryReconciler({ cluster, sender, settings, now: Date.now, log: createLogger('silent'), stepsPerProject: STEPS_PER_PROJECT, requeue: (request) => requeued.push(request) });
    const stuck = await deliveriesTo('project-b', `${silent.url}/never-answers`, STEPS_PER_PROJECT + 2);
    const [quick] = await deliveriesTo('project-a', `${receiver.url}/answers`, 1);

    const sending = stuck.map((name) => reconciler.reconcile({ namespace: 'project-b', name }));
    await silent.arrived(STEPS_PER_PROJECT);
    // The two over the share came back at once, without an attempt.
    const parked = stuck.slice(STEPS_PER_PROJECT);
    assert.deepEqual(await Promise.all(sending.slice(STEPS_PER_PROJECT)), [undefined, undefined]);
    for (const name of parked) assert.equal(await attemptsOf('project-b', name), 0, `${name} was not sent`);

    await reconciler.reconcile({ namespace: 'project-a', name: quick! });
    assert.equal(await attemptsOf('project-a', quick!), 1);
    assert.equal(receiver.received.length, 1, "project-a's delivery went out while project-b's receiver held its share");
    assert.equal(silent.seen(), STEPS_PER_PROJECT);
    assert.deepEqual(requeued, [], 'nothing of project-b is put back while its steps are under way');

    silent.release();
    await Promise.all(sending);
    assert.deepEqual(requeued, parked.map((name) => ({ namespace: 'project-b', name })), 'each parked delivery is put back as a step of its project ends');
  });
});
