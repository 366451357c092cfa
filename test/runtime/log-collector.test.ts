// The log collector's account of a crash: the newest error output, not Node's version line.
import assert from 'node:assert/strict';
import { LogCollector } from '../../src/runtime/sandbox/log-collector.js';

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
