// Label selectors: the operators, the errors for malformed input, and a property test against a
// reference evaluation of the same requirements.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseLabelSelector, validateLabels, type SelectorOperator } from '../../src/cluster/labels.js';
import { InvalidError } from '../../src/cluster/port.js';

describe('label selectors', function () {
  const labels = { app: 'web', tier: 'front', 'example.com/owner': 'team-a', empty: '' };

  it('matches every operator the way Kubernetes does', function () {
    const cases: [string, boolean][] = [
      ['', true],
      ['app=web', true],
      ['app==web', true],
      ['app=db', false],
      ['app!=db', true],
      ['missing!=x', true],
      ['app in (db, web)', true],
      ['app in (db)', false],
      ['missing in (x)', false],
      ['app notin (db)', true],
      ['missing notin (x)', true],
      ['app notin (web)', false],
      ['tier', true],
      ['missing', false],
      ['!missing', true],
      ['!tier', false],
      ['example.com/owner=team-a', true],
      ['empty=', true],
      ['empty', true],
      ['empty in ()', true],
      ['app in (web,)', true],
      ['  app = web ,  tier in(front) , !missing ', true],
      ['app=web,tier=back', false],
    ];
    for (const [selector, expected] of cases) assert.equal(parseLabelSelector(selector).matches(labels), expected, `"${selector}"`);
    assert.equal(parseLabelSelector('!x').matches(undefined), true);
    assert.equal(parseLabelSelector('x').matches(undefined), false);
  });

  it('rejects malformed selectors with InvalidError naming the problem and its position', function () {
    const cases: [string, RegExp][] = [
      ['app in web', /expected '\(' .*position 7/],
      ['app=web,', /found the end of the selector, expected a label key/],
      ['=web', /found '=', expected a label key \(at position 0\)/],
      ['app in (web', /expected ',' or '\)'/],
      ['app web', /expected an operator/],
      ['app=(web)', /found '\(', expected a value/],
      ['app > 3', /operator '>' is not supported/],
      ['a/b/c=x', /at most one '\/'/],
      ['app=has space', /expected ',' or the end/],
      ['app=' + 'v'.repeat(64), /must be no more than 63 characters/],
      ['-app=x', /name part must consist of alphanumeric/],
      ['Bad_Prefix.com/app=x', /prefix part must consist of lowercase/],
    ];
    for (const [selector, message] of cases) {
      assert.throws(() => parseLabelSelector(selector), (err: unknown) => err instanceof InvalidError && message.test(err.message) && err.message.includes(selector), `"${selector}"`);
    }
  });

  it('validates label maps like the API server', function () {
    validateLabels({ 'browserfn.dev/function-uid': '0b8a8f0e-1c1a-4c1e-9c1a-0b8a8f0e1c1a', plain: '' });
    assert.throws(() => validateLabels({ app: 'x'.repeat(64) }), /metadata.labels\["app"\].*63/);
    assert.throws(() => validateLabels({ 'UPPER.example.com/a': 'x' }), /prefix part/);
    assert.throws(() => validateLabels({ a: 3 }), /must be a string/);
  });

  it('property: parsing a rendered selector matches a reference evaluation of its requirements', function () {
    type Req = { key: string; operator: SelectorOperator; values: string[] };
    const keys = ['a', 'b', 'example.com/c'];
    const values = ['x', 'y', ''];
    const key = fc.constantFrom(...keys);
    const requirement: fc.Arbitrary<Req> = fc.oneof(
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('Equals', 'NotEquals'), values: fc.constantFrom(...values).map((v) => [v]) }),
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('In', 'NotIn'), values: fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }) }),
      fc.record({ key, operator: fc.constantFrom<SelectorOperator>('Exists', 'DoesNotExist'), values: fc.constant<string[]>([]) }),
    );
    const space = fc.constantFrom('', ' ', '  ');
    const rendered = (req: Req, s: string, eq: '=' | '=='): string => {
      switch (req.operator) {
        case 'Equals':
          return `${s}${req.key}${s}${eq}${s}${req.values[0]}${s}`;
        case 'NotEquals':
          return `${s}${req.key}${s}!=${s}${req.values[0]}${s}`;
        case 'In':
        case 'NotIn':
          return `${s}${req.key} ${req.operator === 'In' ? 'in' : 'notin'}${s}(${req.values.join(`${s},${s}`)})${s}`;
        case 'Exists':
          return `${s}${req.key}${s}`;
        case 'DoesNotExist':
          return `${s}!${s}${req.key}${s}`;
      }
    };
    const reference = (req: Req, set: Record<string, string>): boolean => {
      const present = req.key in set;
      switch (req.operator) {
        case 'Equals':
        case 'In':
          return present && req.values.some((v) => v === set[req.key]);
        case 'NotEquals':
        case 'NotIn':
          return !present || req.values.every((v) => v !== set[req.key]);
        case 'Exists':
          return present;
        case 'DoesNotExist':
          return !present;
      }
    };
    fc.assert(
      fc.property(
        fc.array(requirement, { maxLength: 4 }),
        fc.dictionary(key, fc.constantFrom(...values)),
        space,
        fc.constantFrom<'=' | '=='>('=', '=='),
        (reqs, set, s, eq) => {
          const selector = parseLabelSelector(reqs.map((r) => rendered(r, s, eq)).join(','));
          assert.equal(selector.requirements.length, reqs.length);
          assert.equal(selector.matches(set), reqs.every((r) => reference(r, set)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
