// The secrets `browserfn dev` hands its Functions, read from a local file: JSON ({"NAME": "value"})
// when the file ends in .json, else dotenv lines (NAME=value, `#` comments, optional `export `
// and quotes). Errors name the file and line, never a value.
import { readFileSync } from 'node:fs';
import { assertSecretKey } from '../../secrets/secret-key.js';

export function readLocalSecrets(file: string): Map<string, string> {
  const text = readFileSync(file, 'utf8');
  const secrets = file.endsWith('.json') ? fromJson(file, text) : fromDotenv(file, text);
  for (const name of secrets.keys()) {
    try {
      assertSecretKey(name);
    } catch (err) {
      throw new Error(`${file}: secret name "${name.slice(0, 64)}": ${(err as Error).message}`);
    }
  }
  return secrets;
}

function fromJson(file: string, text: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON: write {"NAME": "value", ...}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file} must hold one JSON object: {"NAME": "value", ...}`);
  const secrets = new Map<string, string>();
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new Error(`${file}: the value of ${name} must be a string`);
    secrets.set(name, v);
  }
  return secrets;
}

const LINE = /^\s*(?:export\s+)?([^\s=#]+)\s*=\s*(.*)$/;

function fromDotenv(file: string, text: string): Map<string, string> {
  const secrets = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*(#|$)/.test(line)) return;
    const match = LINE.exec(line);
    if (!match) throw new Error(`${file}:${index + 1}: expected NAME=value`);
    secrets.set(match[1], unquote(match[2]));
  });
  return secrets;
}

function unquote(raw: string): string {
  const value = raw.trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    const inner = value.slice(1, -1);
    return quote === '"' ? inner.replace(/\\n/g, '\n').replace(/\\"/g, '"') : inner;
  }
  // Unquoted: a ` #` starts a comment.
  return value.replace(/\s+#.*$/, '');
}
