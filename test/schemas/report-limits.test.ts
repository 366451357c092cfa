// What a report counts against its size limits: an entry measured with its params serialized once
// (the session recorder, per CDP event) counts exactly what serializing the whole entry counts.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { reportedBytes, reportedBytesWithParams } from '../../src/schemas/report-limits.js';

describe('report limits: the bytes of a session event', () => {
  it('counts the same with its params serialized ahead as serialized whole, for any entry', () => {
    const entry = fc.record(
      {
        method: fc.string(),
        timestamp: fc.integer({ min: 0 }),
        params: fc.jsonValue({ maxDepth: 4 }),
        pageId: fc.string(),
        sessionId: fc.string({ unit: 'binary' }),
        frameId: fc.string(),
      },
      { requiredKeys: ['method', 'timestamp', 'params'] },
    );
    fc.assert(
      fc.property(entry, (value) => {
        assert.equal(reportedBytesWithParams(value, JSON.stringify(value.params)), reportedBytes(value));
      }),
      { numRuns: 300 },
    );
  });
});
