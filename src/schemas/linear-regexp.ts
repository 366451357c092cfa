// Regular expressions that users supply (JSON Schema `pattern` and `patternProperties`, x-extract
// regexes) run on RE2's linear-time engine (re2js, pure JavaScript), so no pattern and no input can
// make a match backtrack for minutes on the API's thread. Patterns are written in ECMAScript syntax
// with the `u` flag (what JSON Schema and ajv use); they are checked by V8's own parser, then
// translated token by token to RE2 syntax with the same meaning. What has no linear-time
// equivalent — backreferences, lookaround — is refused with an UnsupportedPatternError naming the
// pattern and the construct.
import { RE2JS } from 're2js';

export class UnsupportedPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern.length > 200 ? pattern.slice(0, 200) + '…' : pattern)} ${reason}`);
    this.name = 'UnsupportedPatternError';
  }
}

/** The part of RegExp that ajv and the extractor use. */
export interface LinearRegExp {
  readonly source: string;
  /** Unanchored search, like RegExp.prototype.test. */
  test(input: string): boolean;
  /** The first match and its groups (null for a group that took no part), like RegExp.prototype.exec. */
  exec(input: string): (string | null)[] | null;
  toString(): string;
}

const LINEAR_ONLY = 'only patterns that match in linear time are run here: no backreferences and no lookaround';
const MAX_REPEAT = 1000;
// Linear time is pattern size × input size: a 60-character pattern of counted repeats compiles to
// thousands of instructions and takes seconds on 64 KiB. This cap keeps one match of the largest
// invoke params near 0.1 s; real-world patterns (e-mail, UUID, slugs) stay far below it.
export const MAX_PROGRAM_SIZE = 2000;

/** Thrown when the patterns of one check would need more work than withPatternBudget allowed. */
export class PatternBudgetError extends Error {
  constructor(readonly budget: number) {
    super(`matching the patterns needs more than ${budget} steps (pattern instructions × characters)`);
    this.name = 'PatternBudgetError';
  }
}

// Each match costs at most (program size × input length) steps. A schema can apply many patterns
// to the same strings (allOf, $ref reused), so one check's total is bounded, not only each match.
let remainingSteps = Infinity;
let activeBudget = Infinity;

/** Runs `check` allowing its pattern matches `budget` steps in all; past that they throw PatternBudgetError. */
export function withPatternBudget<T>(budget: number, check: () => T): T {
  const saved = [remainingSteps, activeBudget];
  [remainingSteps, activeBudget] = [budget, budget];
  try {
    return check();
  } finally {
    [remainingSteps, activeBudget] = saved;
  }
}

function spend(programSize: number, input: string): void {
  remainingSteps -= programSize * (input.length + 1);
  if (remainingSteps < 0) throw new PatternBudgetError(activeBudget);
}

const compiled = new Map<string, LinearRegExp>();
const MAX_CACHED = 500;

/** Compiles an ECMAScript pattern (flag `u`) for the linear-time engine; throws UnsupportedPatternError. */
export function compileLinearRegExp(pattern: string): LinearRegExp {
  let regexp = compiled.get(pattern);
  if (!regexp) {
    regexp = compile(pattern);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, regexp);
  }
  return regexp;
}

function compile(pattern: string): LinearRegExp {
  try {
    new RegExp(pattern, 'u'); // parses only (V8 compiles lazily): the syntax is ECMAScript's, errors are V8's
  } catch (err) {
    throw new UnsupportedPatternError(pattern, `is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /s, '')}`);
  }
  const translator = new Translator(pattern);
  const translated = translator.translate();
  // RE2 compiles a counted repeat into as many copies of what it repeats, synchronously: a few KB
  // of nested or repeated {1,1000} took it 40 s. The copies are counted first (each is at least an
  // instruction), so what could never pass the size cap is refused before any is made.
  if (translator.atoms > MAX_PROGRAM_SIZE) {
    throw new UnsupportedPatternError(pattern, `is too large to match in bounded time (its counted repeats expand to more than ${MAX_PROGRAM_SIZE} instructions, at most ${MAX_PROGRAM_SIZE}); use smaller counted repeats such as {1,100}`);
  }
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(translated);
  } catch (err) {
    throw new UnsupportedPatternError(pattern, `cannot be run by the linear-time engine: ${(err as Error).message}`);
  }
  if (re2.programSize() > MAX_PROGRAM_SIZE) {
    throw new UnsupportedPatternError(pattern, `is too large to match in bounded time (${re2.programSize()} instructions, at most ${MAX_PROGRAM_SIZE}); use smaller counted repeats such as {1,100}`);
  }
  const size = re2.programSize();
  return {
    source: pattern,
    test: (input) => {
      spend(size, input);
      return re2.test(input);
    },
    exec: (input) => {
      spend(size, input);
      return re2.exec(input);
    },
    toString: () => `/${pattern}/u`,
  };
}

/** ajv's `code.regExp` engine: every `pattern` and `patternProperties` key a schema holds runs in linear time. */
export const linearRegExpEngine = Object.assign(
  (pattern: string, flags: string): LinearRegExp => {
    if (flags !== 'u') throw new UnsupportedPatternError(pattern, `was asked for with flags "${flags}"; only "u" is supported`);
    return compileLinearRegExp(pattern);
  },
  // ajv writes this into standalone validation code; this service never generates standalone code.
  { code: 'linearRegExp' },
);

/** ajv options that put user patterns on the linear-time engine (and keep ajv's own compile-time checks off them). */
export const linearRegExpAjvOptions = {
  code: { regExp: linearRegExpEngine },
  // In strict mode ajv tests patternProperties against property names with RegExp at compile time.
  allowMatchingProperties: true,
} as const;

// ECMAScript's \s: WhiteSpace and LineTerminator (RE2's \s is ASCII only).
const WHITESPACE: [number, number][] = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
const ALL: [number, number][] = [[0, 0x10ffff]];
const ASCII: [number, number][] = [[0, 0x7f]];
// ECMAScript's `.` without the s flag: anything but a line terminator.
const LINE_TERMINATORS: [number, number][] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

// General categories by their long names (ECMAScript accepts both; RE2 only the short ones).
const GENERAL_CATEGORIES: Record<string, string> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc', Enclosing_Mark: 'Me',
  Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps', Close_Punctuation: 'Pe', Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
};
const SHORT_CATEGORIES = new Set(Object.values(GENERAL_CATEGORIES));

/** What a class escape stands for: ranges, or an RE2 escape that means the same in and out of brackets. */
type ClassEscape = { ranges: [number, number][] } | { re2: string };

/** Translates one syntactically valid ECMAScript `u` pattern into RE2 syntax, or refuses it. */
class Translator {
  private i = 0;
  private out = '';
  /** Atoms (characters, classes) of the pattern once its counted repeats are expanded, as far as read. */
  atoms = 0;
  /** The atoms before each open group, and of the last atom or group read (what a quantifier repeats). */
  private readonly before: number[] = [];
  private last = 0;

  constructor(private readonly pattern: string) {}

  translate(): string {
    const p = this.pattern;
    while (this.i < p.length) {
      const c = p[this.i];
      const atomsBefore = this.atoms;
      if (c === '\\') this.out += this.atomEscape();
      else if (c === '[') this.out += this.characterClass();
      else if (c === '(') {
        this.out += this.groupOpening();
        this.before.push(this.atoms);
        this.atoms = 0;
        continue;
      } else if (c === '{') {
        this.out += this.counted();
        continue;
      } else if (c === '.') {
        this.out += classOf(complement(LINE_TERMINATORS));
        this.i++;
      } else if (c === ')') {
        this.out += c;
        this.i++;
        this.last = this.atoms;
        this.atoms += this.before.pop() ?? 0;
        continue;
      } else if ('^$|*+?'.includes(c)) {
        this.out += c;
        this.i++;
        continue;
      } else this.out += literal(this.codePoint());
      this.atoms = atomsBefore + 1;
      this.last = 1;
    }
    return this.out;
  }

  private refuse(reason: string): never {
    throw new UnsupportedPatternError(this.pattern, reason);
  }

  private codePoint(): number {
    const cp = this.pattern.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private groupOpening(): string {
    const rest = this.pattern.slice(this.i);
    if (rest.startsWith('(?:')) return this.take(3, '(?:');
    if (rest.startsWith('(?=') || rest.startsWith('(?!')) this.refuse(`uses a lookahead (${rest.slice(0, 3)}…); ${LINEAR_ONLY}`);
    if (rest.startsWith('(?<=') || rest.startsWith('(?<!')) this.refuse(`uses a lookbehind (${rest.slice(0, 4)}…); ${LINEAR_ONLY}`);
    if (rest.startsWith('(?<')) return this.take(rest.indexOf('>') + 1, '('); // a named group: the name is not needed to match
    if (rest.startsWith('(?')) this.refuse('uses inline modifiers (?flags:…), which are not supported');
    return this.take(1, '(');
  }

  /** {n}, {n,} or {n,m} (in `u` mode a brace is always a quantifier). */
  private counted(): string {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.i))!;
    const bounds = [match[1], match[3]].filter((n): n is string => !!n).map(Number);
    if (bounds.some((n) => n > MAX_REPEAT)) this.refuse(`repeats ${match[0]}; the linear-time engine allows counts up to ${MAX_REPEAT}`);
    // What it repeats is there as many times as the largest count (one more for {n,}).
    const copies = Math.max(1, bounds.at(-1)! + (match[2] !== undefined && match[3] === '' ? 1 : 0));
    this.atoms += this.last * (copies - 1);
    this.last *= copies;
    return this.take(match[0].length, match[0]);
  }

  private take(length: number, emit: string): string {
    this.i += length;
    return emit;
  }

  private atomEscape(): string {
    const c = this.pattern[this.i + 1];
    if (c === 'b' || c === 'B') return this.take(2, '\\' + c); // word boundaries: ASCII words in both
    if (/[1-9]/.test(c) || c === 'k') this.refuse(`uses a backreference (\\${c}…); ${LINEAR_ONLY}`);
    const escape = this.classEscape();
    if (typeof escape === 'number') return literal(escape);
    return 're2' in escape ? escape.re2 : classOf(escape.ranges);
  }

  /** An escape at this.i (which points at the backslash): a code point, or a class of them. */
  private classEscape(): number | ClassEscape {
    const p = this.pattern;
    const c = p[this.i + 1];
    this.i += 2;
    switch (c) {
      case 'd': case 'D': case 'w': case 'W':
        return { re2: '\\' + c }; // [0-9] and [0-9A-Za-z_] in both engines
      case 's':
        return { ranges: WHITESPACE };
      case 'S':
        return { ranges: complement(WHITESPACE) };
      case 'p': case 'P':
        return this.property(c === 'P');
      case 't': return 0x09;
      case 'n': return 0x0a;
      case 'v': return 0x0b;
      case 'f': return 0x0c;
      case 'r': return 0x0d;
      case 'b': return 0x08; // inside a class: backspace
      case '0': return 0;
      case 'c': return p.charCodeAt(this.i++) % 32;
      case 'x': {
        const value = parseInt(p.slice(this.i, this.i + 2), 16);
        this.i += 2;
        return value;
      }
      case 'u':
        return this.unicodeEscape();
      default:
        this.i -= 1;
        return this.codePoint(); // an identity escape: ^ $ \ . * + ? ( ) [ ] { } | / -
    }
  }

  /** \uHHHH (a surrogate pair of them is one code point in `u` mode) or \u{H…}. */
  private unicodeEscape(): number {
    const p = this.pattern;
    if (p[this.i] === '{') {
      const end = p.indexOf('}', this.i);
      const value = parseInt(p.slice(this.i + 1, end), 16);
      this.i = end + 1;
      return value;
    }
    const value = parseInt(p.slice(this.i, this.i + 4), 16);
    this.i += 4;
    const trail = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(p.slice(this.i));
    if (value >= 0xd800 && value <= 0xdbff && trail) {
      this.i += 6;
      return 0x10000 + ((value - 0xd800) << 10) + (parseInt(trail[1], 16) - 0xdc00);
    }
    return value;
  }

  /** \p{…} / \P{…}: general categories and scripts as RE2 has them, Any and ASCII as ranges; other properties are refused. */
  private property(negated: boolean): ClassEscape {
    const end = this.pattern.indexOf('}', this.i);
    const body = this.pattern.slice(this.i + 1, end);
    this.i = end + 1;
    const [name, value] = body.includes('=') ? body.split('=') : [undefined, body];
    const sign = negated ? 'P' : 'p';
    if (name === undefined && (value === 'Any' || value === 'ASCII')) {
      const ranges = value === 'Any' ? ALL : ASCII;
      return { ranges: negated ? complement(ranges) : ranges };
    }
    if (name === undefined || name === 'General_Category' || name === 'gc') {
      const short = GENERAL_CATEGORIES[value] ?? (SHORT_CATEGORIES.has(value) ? value : undefined);
      if (short) return { re2: `\\${sign}{${short}}` };
      this.refuse(`uses the Unicode property \\${sign}{${body}}, which the linear-time engine does not have; use a general category such as \\p{L} or a script such as \\p{Script=Latin}`);
    }
    if (name === 'Script' || name === 'sc') return { re2: `\\${sign}{${value}}` };
    this.refuse(`uses \\${sign}{${body}}; of the Unicode properties the linear-time engine has general categories and scripts (Script=…), not ${name}`);
  }

  private characterClass(): string {
    const p = this.pattern;
    this.i++;
    const negated = p[this.i] === '^';
    if (negated) this.i++;
    let items = '';
    while (p[this.i] !== ']') {
      const low = this.classAtom();
      if (typeof low === 'number' && p[this.i] === '-' && p[this.i + 1] !== ']') {
        this.i++;
        const high = this.classAtom() as number; // V8 accepted the pattern: both ends of a range are characters
        items += `${literal(low)}-${literal(high)}`;
      } else items += typeof low === 'number' ? literal(low) : 're2' in low ? low.re2 : rangesText(low.ranges);
    }
    this.i++;
    // RE2 has no empty class: [] matches nothing and [^] anything.
    if (items === '') return classOf(negated ? ALL : []);
    return `[${negated ? '^' : ''}${items}]`;
  }

  private classAtom(): number | ClassEscape {
    return this.pattern[this.i] === '\\' ? this.classEscape() : this.codePoint();
  }
}

/** A code point as RE2 reads it literally. */
function literal(cp: number): string {
  return /[A-Za-z0-9_ ]/.test(String.fromCodePoint(cp)) && cp < 0x80 ? String.fromCharCode(cp) : `\\x{${cp.toString(16)}}`;
}

function rangesText(ranges: [number, number][]): string {
  return ranges.map(([low, high]) => (low === high ? literal(low) : `${literal(low)}-${literal(high)}`)).join('');
}

/** A bracket expression of the ranges; no ranges at all is a class that matches nothing. */
function classOf(ranges: [number, number][]): string {
  return ranges.length === 0 ? `[^${rangesText(ALL)}]` : `[${rangesText(ranges)}]`;
}

/** The code points not in `ranges` (which are sorted and disjoint). */
function complement(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) out.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}
