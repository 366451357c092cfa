// The retention decisions, table-driven with a fake clock: when a finished object is archived,
// which archived objects the sweep deletes, which version bundles are pruned.
import assert from 'node:assert/strict';
import { bundlesToPrune, expiredArchiveKeys, finishedObjectStep, type FinishedCandidate, type RetentionStep } from '../../src/controller/policies/retention.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const HOUR = 3_600_000;

describe('retention policy', () => {
  describe('finishedObjectStep', () => {
    const cases: [string, FinishedCandidate, number, number, RetentionStep][] = [
      ['a running object stays, however old', { terminal: false, createdAt: at(0) }, 100 * HOUR, HOUR, { kind: 'keep' }],
      ['a finished one waits out the rest of its TTL', { terminal: true, endedAt: at(0) }, 15 * 60_000, HOUR, { kind: 'wait', afterMs: 45 * 60_000 }],
      ['at the TTL it is archived', { terminal: true, endedAt: at(0) }, HOUR, HOUR, { kind: 'archive' }],
      ['long after the TTL it is archived', { terminal: true, endedAt: at(0) }, 50 * HOUR, HOUR, { kind: 'archive' }],
      ['TTL 0: archived as soon as it ends', { terminal: true, endedAt: at(0) }, 0, 0, { kind: 'archive' }],
      ['without endedAt, its creation time counts', { terminal: true, createdAt: at(0) }, HOUR - 1, HOUR, { kind: 'wait', afterMs: 1 }],
      ['without any time, it is archived (never kept forever)', { terminal: true }, 0, HOUR, { kind: 'archive' }],
    ];
    for (const [name, candidate, nowOffset, ttl, expected] of cases) {
      it(name, () => assert.deepEqual(finishedObjectStep(candidate, T0 + nowOffset, ttl), expected));
    }
  });

  describe('expiredArchiveKeys', () => {
    const entries = [
      { key: 'invocations/p/a.json', lastModifiedMs: T0 },
      { key: 'sessions/p/s.json', lastModifiedMs: T0 + 1 },
      { key: 'builds/p/b.json', lastModifiedMs: T0 + 10 * HOUR },
    ];
    const cases: [string, number, string[]][] = [
      ['nothing before its retention ends', T0 + 24 * HOUR - 1, []],
      ['exactly at the end of retention', T0 + 24 * HOUR, ['invocations/p/a.json']],
      ['each by its own write time', T0 + 24 * HOUR + 1, ['invocations/p/a.json', 'sessions/p/s.json']],
      ['all, long after', T0 + 100 * HOUR, ['invocations/p/a.json', 'sessions/p/s.json', 'builds/p/b.json']],
    ];
    for (const [name, now, expected] of cases) it(name, () => assert.deepEqual(expiredArchiveKeys(entries, now, 24 * HOUR), expected));
  });

  describe('bundlesToPrune', () => {
    const versionsOf = (functionUid: string, n: number, bundleOf = (i: number) => `${functionUid}-b${i}`) =>
      Array.from({ length: n }, (_, i) => ({ functionUid, number: i + 1, bundle: bundleOf(i + 1) }));
    const cases: [string, ReturnType<typeof versionsOf>, string[], number, string[]][] = [
      ['no more versions than kept: nothing', versionsOf('f', 3), ['f-b3'], 3, []],
      ['beyond the newest N: pruned', versionsOf('f', 5), ['f-b5'], 2, ['f-b1', 'f-b2', 'f-b3']],
      ['a bundle in use (a queued invocation of an old version) stays', versionsOf('f', 5), ['f-b5', 'f-b1'], 2, ['f-b2', 'f-b3']],
      [
        'a bundle shared with another Function that keeps it stays',
        [...versionsOf('f', 3, (i) => (i === 1 ? 'shared' : `f-b${i}`)), ...versionsOf('g', 1, () => 'shared')],
        ['f-b3', 'shared'],
        1,
        ['f-b2'],
      ],
      ['versions sharing one bundle count once', [...versionsOf('f', 4, (i) => (i < 3 ? 'old' : `f-b${i}`))], ['f-b4'], 2, ['old']],
    ];
    for (const [name, versions, inUse, keep, expected] of cases) {
      const stored = new Set(versions.map((v) => v.bundle));
      it(name, () => assert.deepEqual(bundlesToPrune(versions, new Set(inUse), stored, keep), expected));
    }
    it('a bundle pruned before is not pruned again', () => {
      assert.deepEqual(bundlesToPrune(versionsOf('f', 5), new Set(['f-b5']), new Set(['f-b2', 'f-b4', 'f-b5']), 2), ['f-b2']);
    });
  });
});
