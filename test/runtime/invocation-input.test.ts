import assert from 'node:assert/strict';
import { parseInvocationInput } from '../../src/runtime/pod-agent/invocation-input.js';

const SHA = 'a'.repeat(64);
const base = { kind: 'invocation', invocationId: 'inv-1', functionName: 'fn', sessionId: 's-1', timeoutSeconds: 30 };

describe('the invocation input a browser pod is handed', () => {
  it('keeps an artifact that comes with the assignment, with the sha256 it must hash to', () => {
    const bytes = Buffer.from('a small artifact');
    const input = parseInvocationInput({ ...base, artifactSha256: SHA, artifactBase64: bytes.toString('base64') });
    assert.deepEqual(Buffer.from(input.artifactBase64!, 'base64'), bytes);
    assert.equal(input.artifactSha256, SHA);
  });

  it('refuses an artifact without the sha256 it must hash to, or one that is not base64', () => {
    assert.throws(() => parseInvocationInput({ ...base, artifactBase64: 'AAAA' }), /artifactBase64 comes only with the artifactSha256/);
    assert.throws(() => parseInvocationInput({ ...base, artifactSha256: SHA, artifactBase64: 'not base64!' }), /artifactBase64 must be base64/);
    assert.throws(() => parseInvocationInput({ ...base, artifactSha256: SHA, artifactBase64: 42 }), /artifactBase64 must be base64/);
  });

  it('needs no artifact: a member without one downloads it', () => {
    assert.equal(parseInvocationInput({ ...base, artifactSha256: SHA }).artifactBase64, undefined);
  });
});
