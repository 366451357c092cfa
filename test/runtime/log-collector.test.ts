// The log collector: a crash explained by the newest error output (not Node's version line), and a
// chatty handler's newest entries kept within what its report stores.
import assert from 'node:assert/strict';
import { LogCollector } from '../../src/runtime/sandbox/log-collector.js';
import { capLogs, OUTCOME_LIMITS } from '../../src/schemas/report-limits.js';

describe('log collector', () => {
  it("explains a crash with the newest error, not the Node version line Node writes after it on its own", () => {
    const logs = new LogCollector();
    logs.add('error', 'an earlier complaint');
    logs.add('info', 'progress');
    logs.add('error', 'file:///code/index.js:3\nError: the code failed\n    at file:///code/index.js:3:9');
    logs.add('error', 'Node.js v20.20.2');
    assert.equal(logs.lastError(), 'file:///code/index.js:3\nError: the code failed\n    at file:///code/index.js:3:9');
    logs.add('error', 'Node.js v20 printed by the code itself');
    assert.equal(logs.lastError(), 'Node.js v20 printed by the code itself', 'only the bare version line is Node\'s');
    assert.equal(new LogCollector().lastError(), undefined);
  });
});

describe('log collector: what a chatty handler keeps', () => {
  it('keeps the newest entries within the report cap, the first a marker saying how many earlier ones were dropped, with nothing left for the report to cut', () => {
    const logs = new LogCollector();
    const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1) + i).toISOString();
    for (let i = 0; i < 20_000; i++) logs.add('info', `line ${i} ${'x'.repeat(90)}`, stamp(i));
    logs.add('warn', 'a warning at the end', stamp(20_000));
    logs.add('error', 'the error that explains it', stamp(20_001));
    const entries = logs.entries();
    const [marker, ...kept] = entries;
    const dropped = Number(/^\[(\d+) earlier log entries dropped: logs are limited to 196608 bytes\]$/.exec(marker.message)?.[1]);
    assert.equal(marker.level, 'warn');
    assert.equal(dropped + kept.length, 20_002, 'every entry is either kept or counted');
    assert.deepEqual(kept.slice(-2).map((e) => e.message), ['a warning at the end', 'the error that explains it']);
    const first = Number(/^line (\d+) /.exec(kept[0].message)?.[1]);
    assert.equal(first, dropped, 'the kept lines follow on from the dropped ones, with no gap');
    assert.equal(marker.timestamp, kept[0].timestamp, 'the marker stands where the kept entries start');
    assert.deepEqual(capLogs(entries, OUTCOME_LIMITS.logsBytes), entries, 'the report keeps it whole');
    assert.equal(logs.lastError(), 'the error that explains it');
  });

  it('keeps everything, with no marker, within the cap', () => {
    const logs = new LogCollector();
    logs.add('info', 'one');
    logs.add('error', 'two');
    assert.deepEqual(logs.entries().map((e) => e.message), ['one', 'two']);
  });
});
