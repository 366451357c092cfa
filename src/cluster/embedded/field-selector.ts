// Field selectors for the embedded store: the two fields every Kubernetes kind supports,
// metadata.name and metadata.namespace, with =, == and != (comma-separated, all must hold).
import type { KubeObject } from '../objects.js';
import { InvalidError } from '../port.js';

interface FieldRequirement {
  field: 'metadata.name' | 'metadata.namespace';
  equal: boolean;
  value: string;
}

export class FieldSelector {
  constructor(private readonly requirements: readonly FieldRequirement[]) {}

  matches(obj: KubeObject): boolean {
    return this.requirements.every((req) => {
      const actual = req.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      return (actual === req.value) === req.equal;
    });
  }
}

export function parseFieldSelector(selector: string | undefined): FieldSelector {
  if (selector === undefined || selector.trim() === '') return new FieldSelector([]);
  return new FieldSelector(
    selector.split(',').map((term) => {
      const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*([^\s]*)\s*$/.exec(term);
      if (!match) throw new InvalidError(`Invalid field selector "${selector}": "${term}" is not of the form field=value or field!=value`);
      const [, field, op, value] = match;
      if (field !== 'metadata.name' && field !== 'metadata.namespace') {
        throw new InvalidError(`Invalid field selector "${selector}": "${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      }
      return { field, equal: op !== '!=', value };
    }),
  );
}
