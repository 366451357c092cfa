// The byte strings a secret value is looked for as: the value itself (its escaped and encoded
// spellings are handled by the decoded views) and its base64 / base64url "cores" at the three
// alignments a value can have inside a larger encoded text (`Basic base64("user:" + value)`):
// the characters that depend on the value's bytes only.

/** Values shorter than this (in characters) are not redacted: they would blank every common short word. */
export const MIN_SECRET_CHARS = 4;
/** Derived needles (a base64 core, a part of a value cut by truncation) shorter than this many bytes are not looked for. */
export const MIN_DERIVED_BYTES = 6;

export interface SecretForm {
  bytes: Buffer;
  /** KMP failure function of `bytes`, for the longest prefix ending at a cut edge. */
  prefixFailure: Int32Array;
  /** The same for the reversed bytes, for the longest suffix starting at a cut edge. */
  reversed: Buffer;
  suffixFailure: Int32Array;
}

export function secretForms(values: Iterable<string>): SecretForm[] {
  const seen = new Map<string, Buffer>();
  const add = (bytes: Buffer) => seen.set(bytes.toString('latin1'), bytes);
  for (const value of values) {
    if ([...value].length < MIN_SECRET_CHARS) continue;
    const raw = Buffer.from(value, 'utf8');
    add(raw);
    for (const alphabet of ['base64', 'base64url'] as const) {
      for (const offset of [0, 1, 2]) {
        const core = base64Core(raw, offset, alphabet);
        if (core.length >= MIN_DERIVED_BYTES) add(Buffer.from(core, 'latin1'));
      }
    }
  }
  return [...seen.values()].map((bytes) => {
    const reversed = Buffer.from(bytes).reverse();
    return { bytes, prefixFailure: failure(bytes), reversed, suffixFailure: failure(reversed) };
  });
}

/**
 * The base64 characters of `raw` placed `offset` bytes into an encoded byte stream that depend on
 * `raw` alone: the first 0, 2 or 3 characters share bits with the bytes before it, and the last
 * one (unless the value ends a 3-byte group) with the bytes after it.
 */
export function base64Core(raw: Buffer, offset: number, alphabet: 'base64' | 'base64url'): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), raw]).toString(alphabet).replace(/=+$/, '');
  const skip = [0, 2, 3][offset];
  const drop = (offset + raw.length) % 3 === 0 ? 0 : 1;
  return encoded.slice(skip, encoded.length - drop);
}

function failure(bytes: Buffer): Int32Array {
  const fail = new Int32Array(bytes.length);
  for (let i = 1, k = 0; i < bytes.length; i++) {
    while (k > 0 && bytes[i] !== bytes[k]) k = fail[k - 1];
    if (bytes[i] === bytes[k]) k++;
    fail[i] = k;
  }
  return fail;
}

/** Length of the longest proper prefix of `form` that `haystack` has right before `end`. */
export function prefixBefore(haystack: Buffer, end: number, form: SecretForm): number {
  return longestMatch(haystack, Math.max(0, end - form.bytes.length + 1), end, 1, form.bytes, form.prefixFailure);
}

/** Length of the longest proper suffix of `form` that `haystack` starts with. */
export function suffixAtStart(haystack: Buffer, form: SecretForm): number {
  const window = Math.min(haystack.length, form.bytes.length - 1);
  return longestMatch(haystack, window - 1, -1, -1, form.reversed, form.suffixFailure);
}

/** KMP over haystack[first] … (stepping by `step`, stopping at `stop`): the matched length of `needle` at the end. */
function longestMatch(haystack: Buffer, first: number, stop: number, step: number, needle: Buffer, fail: Int32Array): number {
  let matched = 0;
  for (let i = first; i !== stop; i += step) {
    const byte = haystack[i];
    while (matched > 0 && needle[matched] !== byte) matched = fail[matched - 1];
    if (needle[matched] === byte) matched++;
    if (matched === needle.length) matched = fail[matched - 1];
  }
  return matched;
}
