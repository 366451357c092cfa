// The controller lease: an API server that fails or stops answering for less than the renew
// deadline costs nothing (a restart of the control plane must not stop the operator), a longer
// silence ends leadership before the lease can expire for the other replicas, and a lease another
// replica holds ends it at once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds, type KubeObject } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { createLogger } from '../../src/config/logger.js';
import { loadSettings } from '../../src/config/settings.js';
import { LeaderElector, type LeaderElectionOptions } from '../../src/controller/runtime/leader-election.js';
import { aroundClusterCalls } from '../support/cluster-calls.js';
import { waitFor } from '../support/service.js';

type Lease = KubeObject & { spec: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number } };

/** The cluster as a leader sees it through a failing network: lease requests fail or hang on demand. */
function unreliable(cluster: ClusterPort) {
  const state = { failNext: 0, failed: 0, hang: false };
  const port = aroundClusterCalls(cluster, ({ proceed }) => {
    if (state.hang) return new Promise(() => undefined);
    if (state.failNext > 0) {
      state.failNext--;
      state.failed++;
      return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
    }
    return proceed();
  });
  return { port, state };
}

describe('leader election', () => {
  const log = createLogger('silent');
  const options = (identity: string): LeaderElectionOptions => ({
    namespace: 'browserfn-system',
    name: 'browserfn-controllers',
    identity,
    leaseDurationSeconds: 4,
    renewDeadlineSeconds: 3,
    retryPeriodSeconds: 0.05,
  });
  let cluster: ClusterPort;
  const electors: LeaderElector[] = [];
  const lease = async () => (await cluster.resource<Lease>(Kinds.Lease).get('browserfn-system', 'browserfn-controllers'))!;

  beforeEach(async () => {
    cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
  });
  afterEach(async () => {
    for (const elector of electors.splice(0)) await elector.stop();
    await cluster.close();
  });

  const elector = (port: ClusterPort, identity: string) => {
    const made = new LeaderElector(port, options(identity), log);
    electors.push(made);
    return made;
  };

  it('keeps leading through failed renewals shorter than the renew deadline, and renews again after them', async () => {
    const { port, state } = unreliable(cluster);
    const leader = elector(port, 'a');
    let lost = 0;
    await leader.run(() => lost++);
    assert.equal(leader.isLeader, true);
    const before = Date.parse((await lease()).spec.renewTime!);
    state.failNext = 5;
    await waitFor('a renewal after the failed ones', async () => (state.failNext === 0 && Date.parse((await lease()).spec.renewTime!) > before ? true : undefined), 10_000);
    assert.equal(state.failed, 5);
    assert.equal(lost, 0, 'leadership was not given up');
    assert.equal(leader.isLeader, true);
    assert.equal((await lease()).spec.holderIdentity, 'a');
  });

  it('stops leading when the API server stops answering, before its lease expires for the others, and another replica takes over', async () => {
    const { port, state } = unreliable(cluster);
    const leader = elector(port, 'a');
    let lostAt: number | undefined;
    await leader.run(() => (lostAt = Date.now()));
    state.hang = true;
    await waitFor('leadership given up', async () => lostAt, 20_000);
    assert.equal(leader.isLeader, false);
    const held = (await lease()).spec;
    assert.equal(held.holderIdentity, 'a');
    const expiresAt = Date.parse(held.renewTime!) + held.leaseDurationSeconds! * 1000;
    assert.ok(lostAt! < expiresAt, `gave up ${lostAt! - expiresAt} ms after the lease expired for the others`);

    const successor = elector(cluster, 'b');
    await successor.run(() => assert.fail('the successor lost its lease'));
    assert.ok(Date.now() >= expiresAt, 'the successor waited for the lease to expire');
    assert.equal((await lease()).spec.holderIdentity, 'b');
  });

  it('stops leading at the next renewal once another replica holds the lease', async () => {
    const leader = elector(cluster, 'a');
    let lost = 0;
    await leader.run(() => lost++);
    const current = await lease();
    await cluster.resource<Lease>(Kinds.Lease).update({ ...current, spec: { ...current.spec, holderIdentity: 'b', renewTime: new Date().toISOString() } });
    await waitFor('leadership given up', async () => (lost ? true : undefined), 10_000);
    assert.equal(lost, 1);
    assert.equal(leader.isLeader, false);
  });

  it('takes its timings from BROWSERFN_LEASE_*, refusing a renew deadline the lease would not outlast', () => {
    const settings = (env: Record<string, string>) => loadSettings({ dataDir: '/tmp/browserfn-settings-test', env: { BROWSERFN_POD_TOKEN_SECRET: 'x', BROWSERFN_API_KEY: 'k', ...env } }).lease;
    assert.deepEqual(settings({}), { durationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 2 });
    assert.deepEqual(settings({ BROWSERFN_LEASE_DURATION_SECONDS: '60', BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS: '40' }), { durationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 2 });
    assert.throws(() => settings({ BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS: '15' }), /BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS \(15\) must be below BROWSERFN_LEASE_DURATION_SECONDS \(15\)/);
    assert.throws(() => settings({ BROWSERFN_LEASE_RETRY_PERIOD_SECONDS: '10' }), /must be below BROWSERFN_LEASE_RENEW_DEADLINE_SECONDS/);
  });
});
