// What a secret may be named: an environment-variable-like identifier, so handlers can read
// `ctx.secrets.API_TOKEN` and the name is safe in labels, logs and shells.
import { invalid } from '../domain/errors.js';

export const SECRET_KEY_MAX_LENGTH = 128;
const SECRET_KEY = new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${SECRET_KEY_MAX_LENGTH - 1}}$`);

export const SECRET_KEY_RULE =
  `1 to ${SECRET_KEY_MAX_LENGTH} characters from A-Z, a-z, 0-9 and _, not starting with a digit (like an environment variable name, e.g. API_TOKEN)`;

export function assertSecretKey(secretKey: unknown): asserts secretKey is string {
  if (typeof secretKey !== 'string' || !SECRET_KEY.test(secretKey)) {
    const shown = typeof secretKey === 'string' ? `"${secretKey.slice(0, 64)}"` : String(secretKey);
    throw invalid(`Invalid secretKey ${shown}: use ${SECRET_KEY_RULE}`);
  }
}
