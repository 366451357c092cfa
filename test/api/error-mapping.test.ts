// The façade turns a use case's error kind into a status and body in one place; anything that is
// neither a DomainError nor an HttpError stays unknown (the app answers a generic 500 for it).
import assert from 'node:assert/strict';
import { busy, conflict, invalid, isDomainError, notFound } from '../../src/domain/errors.js';
import { HttpError, errorBody, toHttpError } from '../../src/api/http-error.js';

describe('error mapping at the edge', () => {
  for (const [err, status, error] of [
    [invalid('params is too large'), 400, 'Bad Request'],
    [notFound('Function x does not exist in this project'), 404, 'Not Found'],
    [conflict('Function x has no published version yet'), 409, 'Conflict'],
    [busy('too many waiting', 30), 429, 'Too Many Requests'],
  ] as const) {
    it(`maps kind "${err.kind}" to ${status} with the message unchanged`, () => {
      const mapped = toHttpError(err);
      assert.ok(mapped);
      assert.deepEqual(errorBody(mapped.status, mapped.message, mapped.extra), { statusCode: status, error, message: err.message });
    });
  }

  it('asks a busy caller to retry later with Retry-After', () => {
    assert.deepEqual(toHttpError(busy('too many waiting', 30))?.headers, { 'retry-after': '30' });
  });

  it('passes the edge\'s own HttpError through with its extra fields', () => {
    const own = new HttpError(413, 'Request body exceeds the limit', { id: 'f1' });
    assert.equal(toHttpError(own), own);
  });

  it('leaves other errors unknown, so their messages never reach the caller', () => {
    assert.equal(toHttpError(new Error('secret detail')), undefined);
    assert.equal(toHttpError('a string'), undefined);
  });

  it('lets domain code decide on the kind, not on a status', () => {
    assert.ok(isDomainError(notFound('gone'), 'not-found'));
    assert.ok(!isDomainError(conflict('taken'), 'not-found'));
    assert.ok(!isDomainError(new Error('gone'), 'not-found'));
  });
});
