// Which shape a node agent makes sandboxes ahead for (spare-sandboxes.ts, chooseShape): cold pods of
// another shape take it over only two in a row, so pods alternating between shapes cannot have every
// sandbox made and thrown away unused.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseShape, type ShapeChoice } from '../../src/runtime/node-agent/spare-sandboxes.js';

const after = (seen: string[]): ShapeChoice => seen.reduce<ShapeChoice>(chooseShape, {});

describe('the shape sandboxes are made ahead for', () => {
  it('is the first cold pod\'s, and stays while pods of it come', () => {
    assert.equal(after(['a']).shape, 'a');
    assert.equal(after(['a', 'a', 'a']).shape, 'a');
  });

  it('changes once two cold pods in a row have another shape', () => {
    assert.equal(after(['a', 'b']).shape, 'a');
    assert.equal(after(['a', 'b', 'b']).shape, 'b');
    assert.equal(after(['a', 'b', 'a', 'b', 'b']).shape, 'b');
  });

  it('never changes while pods alternate between two shapes (or a pod of the kept shape comes between)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('b', 'c'), { maxLength: 40 }), (others) => {
        // Each other shape is followed by a pod of the kept one before the next.
        const seen = ['a', ...others.flatMap((other) => [other, 'a'])];
        assert.equal(after(seen).shape, 'a');
      }),
    );
  });

  it('after any pods, two in a row of one shape make it the shape', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 30 }), fc.constantFrom('a', 'b', 'c'), (seen, last) => {
        assert.equal(after([...seen, last, last]).shape, last);
      }),
    );
  });
});
