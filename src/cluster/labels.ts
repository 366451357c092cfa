// Kubernetes label selectors in their string form (what `labels.Parse` accepts) and label validation.
// Grammar: requirement (',' requirement)*, where a requirement is one of
//   key | !key | key=value | key==value | key!=value | key in (v1,v2) | key notin (v1,v2)
// Values may be empty (`a=` means "a is set to the empty string"), as in Kubernetes.
import { InvalidError } from './port.js';
import { labelValueProblem, qualifiedNameProblem } from './names.js';

export type SelectorOperator = 'Equals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface Requirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

export type Labels = Readonly<Record<string, string>> | undefined;

export class LabelSelector {
  constructor(readonly requirements: readonly Requirement[]) {}

  /** Every requirement must hold; the empty selector matches everything. */
  matches(labels: Labels): boolean {
    return this.requirements.every((req) => requirementMatches(req, labels ?? {}));
  }

  get isEmpty(): boolean {
    return this.requirements.length === 0;
  }
}

function requirementMatches(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'In':
      return has && req.values.includes(value as string);
    case 'NotEquals':
    case 'NotIn':
      // As in Kubernetes: an absent label satisfies != and notin.
      return !has || !req.values.includes(value as string);
  }
}

type TokenKind = 'identifier' | '!' | '!=' | '=' | '==' | '(' | ')' | ',' | '<' | '>' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (isSpace(ch)) {
      i += 1;
    } else if (SPECIAL.has(ch)) {
      const pair = input.slice(i, i + 2);
      const kind: TokenKind = pair === '!=' || pair === '==' ? pair : (ch as TokenKind);
      tokens.push({ kind, text: kind, position: i });
      i += kind.length;
    } else {
      const start = i;
      while (i < input.length && !isSpace(input[i]) && !SPECIAL.has(input[i])) i += 1;
      tokens.push({ kind: 'identifier', text: input.slice(start, i), position: start });
    }
  }
  tokens.push({ kind: 'end', text: '', position: input.length });
  return tokens;
}

class SelectorParser {
  private readonly tokens: Token[];
  private index = 0;

  constructor(private readonly input: string) {
    this.tokens = tokenize(input);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    if (this.peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const next = this.next();
      if (next.kind === 'end') return requirements;
      if (next.kind !== ',') this.fail(next, "',' or the end of the selector");
    }
  }

  private requirement(): Requirement {
    if (this.peek().kind === '!') {
      this.next();
      return this.validated({ key: this.key(), operator: 'DoesNotExist', values: [] });
    }
    const key = this.key();
    const op = this.peek();
    if (op.kind === 'end' || op.kind === ',') return this.validated({ key, operator: 'Exists', values: [] });
    this.next();
    if (op.kind === '=' || op.kind === '==' || op.kind === '!=') {
      const operator = op.kind === '!=' ? 'NotEquals' : 'Equals';
      const value = this.peek();
      if (value.kind === 'end' || value.kind === ',') return this.validated({ key, operator, values: [''] });
      if (value.kind !== 'identifier') this.fail(value, 'a value');
      this.next();
      return this.validated({ key, operator, values: [value.text] });
    }
    if (op.kind === 'identifier' && (op.text === 'in' || op.text === 'notin')) {
      return this.validated({ key, operator: op.text === 'in' ? 'In' : 'NotIn', values: this.valueSet() });
    }
    if (op.kind === '<' || op.kind === '>') {
      throw this.error(op, `operator '${op.text}' is not supported here; use =, ==, !=, in, notin, or existence (key, !key)`);
    }
    return this.fail(op, "an operator ('=', '==', '!=', 'in', 'notin') or ',' after the key");
  }

  /** `(v1, v2)`; empty members are empty-string values, as Kubernetes reads `(a,)` and `()`. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, "'(' to start the set of values");
    const values: string[] = [];
    for (;;) {
      const member = this.peek();
      if (member.kind === 'identifier') {
        this.next();
        values.push(member.text);
      } else {
        values.push('');
      }
      const separator = this.next();
      if (separator.kind === ')') return [...new Set(values)];
      if (separator.kind !== ',') this.fail(separator, "',' or ')' in the set of values");
    }
  }

  private key(): string {
    const token = this.next();
    if (token.kind !== 'identifier') this.fail(token, 'a label key');
    return token.text;
  }

  private validated(req: Requirement): Requirement {
    const keyProblem = qualifiedNameProblem(req.key);
    if (keyProblem) throw new InvalidError(`Invalid label selector "${this.input}": key "${req.key}" ${keyProblem}`);
    for (const value of req.values) {
      const valueProblem = labelValueProblem(value);
      if (valueProblem) throw new InvalidError(`Invalid label selector "${this.input}": value "${value}" for key "${req.key}" ${valueProblem}`);
    }
    return req;
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private fail(found: Token, expected: string): never {
    const what = found.kind === 'end' ? 'the end of the selector' : `'${found.text}'`;
    throw this.error(found, `found ${what}, expected ${expected}`);
  }

  private error(at: Token, detail: string): InvalidError {
    return new InvalidError(`Invalid label selector "${this.input}": ${detail} (at position ${at.position})`);
  }
}

/** Parses a selector string; undefined or blank selects everything. Malformed input: InvalidError. */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  return new LabelSelector(selector === undefined ? [] : new SelectorParser(selector).parse());
}

/** Checks an object's labels the way the API server does; throws InvalidError naming the bad entry. */
export function validateLabels(labels: unknown, field = 'metadata.labels'): void {
  if (labels === undefined) return;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) throw new InvalidError(`${field} must be an object of string keys to string values`);
  for (const [key, value] of Object.entries(labels)) {
    const keyProblem = qualifiedNameProblem(key);
    if (keyProblem) throw new InvalidError(`${field}: key "${key}" ${keyProblem}`);
    if (typeof value !== 'string') throw new InvalidError(`${field}["${key}"] must be a string`);
    const valueProblem = labelValueProblem(value);
    if (valueProblem) throw new InvalidError(`${field}["${key}"]: value "${value}" ${valueProblem}`);
  }
}
