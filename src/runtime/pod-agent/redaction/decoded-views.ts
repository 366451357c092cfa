// Decoded views of a text for secret matching: the text's UTF-8 bytes, and the same after JSON
// unescaping, percent-decoding and form-decoding (`+` is a space), each byte remembering which
// characters of the original text it came from. A value is then looked for as plain bytes in every
// view, so any mix of escaped and unescaped characters (upper- or lower-case hex, `\u00e9` or `é`,
// `%2F` or `/`) matches, and the match maps back to the exact span of the original text.

export interface View {
  bytes: Buffer;
  /** Index of the first original character each byte came from. */
  from: Int32Array;
  /** Index just past the last original character each byte came from. */
  to: Int32Array;
}

/** The text itself as UTF-8. */
export function rawView(text: string): View {
  const bytes = Buffer.from(text, 'utf8');
  const from = new Int32Array(bytes.length);
  const to = new Int32Array(bytes.length);
  let b = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const chars = code > 0xffff ? 2 : 1;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 || chars === 1 ? 3 : 4;
    for (let k = 0; k < size; k++, b++) {
      from[b] = i;
      to[b] = i + chars;
    }
    i += chars;
  }
  return { bytes, from, to };
}

/** Every view worth searching: raw, JSON-unescaped (twice, for JSON inside JSON), each also percent- and form-decoded. */
export function decodedViews(text: string): View[] {
  const raw = rawView(text);
  const bases = [raw];
  let last = raw;
  for (let depth = 0; depth < 2 && last.bytes.includes(0x5c); depth++) {
    last = jsonUnescaped(last);
    bases.push(last);
  }
  const views = [...bases];
  for (const base of bases) {
    if (base.bytes.includes(0x25)) views.push(percentDecoded(base, false));
    if (base.bytes.includes(0x2b)) views.push(percentDecoded(base, true));
  }
  return views;
}

class ViewBuilder {
  private readonly bytes: number[] = [];
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  push(byte: number, from: number, to: number): void {
    this.bytes.push(byte);
    this.from.push(from);
    this.to.push(to);
  }
  pushText(text: string, from: number, to: number): void {
    for (const byte of Buffer.from(text, 'utf8')) this.push(byte, from, to);
  }
  build(): View {
    return { bytes: Buffer.from(this.bytes), from: Int32Array.from(this.from), to: Int32Array.from(this.to) };
  }
}

const hexValue = (byte: number): number =>
  byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x41 && byte <= 0x46 ? byte - 0x37 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;

/** `%XX` becomes the byte XX; with `plusIsSpace` (application/x-www-form-urlencoded) `+` becomes a space. */
export function percentDecoded(view: View, plusIsSpace: boolean): View {
  const out = new ViewBuilder();
  const { bytes, from, to } = view;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && i + 2 < bytes.length && hexValue(bytes[i + 1]) >= 0 && hexValue(bytes[i + 2]) >= 0) {
      out.push(hexValue(bytes[i + 1]) * 16 + hexValue(bytes[i + 2]), from[i], to[i + 2]);
      i += 2;
    } else if (plusIsSpace && bytes[i] === 0x2b) {
      out.push(0x20, from[i], to[i]);
    } else {
      out.push(bytes[i], from[i], to[i]);
    }
  }
  return out.build();
}

const SIMPLE_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

/** JSON string escapes (`\"`, `\\`, `\/`, `\n`…, `\uXXXX` with surrogate pairs) become the characters they stand for. */
export function jsonUnescaped(view: View): View {
  const out = new ViewBuilder();
  const { bytes, from, to } = view;
  const unit = (at: number): number => {
    if (at + 5 >= bytes.length || bytes[at] !== 0x5c || bytes[at + 1] !== 0x75) return -1;
    let value = 0;
    for (let k = 2; k < 6; k++) {
      const digit = hexValue(bytes[at + k]);
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    return value;
  };
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x5c || i + 1 >= bytes.length) {
      out.push(bytes[i], from[i], to[i]);
      continue;
    }
    const simple = SIMPLE_ESCAPES[bytes[i + 1]];
    if (simple !== undefined) {
      out.push(simple, from[i], to[i + 1]);
      i += 1;
      continue;
    }
    const high = unit(i);
    if (high < 0) {
      out.push(bytes[i], from[i], to[i]);
      continue;
    }
    const low = high >= 0xd800 && high < 0xdc00 ? unit(i + 6) : -1;
    if (low >= 0xdc00 && low < 0xe000) {
      out.pushText(String.fromCharCode(high, low), from[i], to[i + 11]);
      i += 11;
    } else {
      out.pushText(String.fromCharCode(high), from[i], to[i + 5]);
      i += 5;
    }
  }
  return out.build();
}
