// Opens the sealed value of a create or update request. Two forms are accepted:
//  - `sealedSecretValue` = base64(enc || ciphertext) with empty HPKE info and aad: what the
//    public clients of this API family send;
//  - `encapsulatedKey` + `sealedValue` (both base64) with info "browserfn.dev/secret-value/v1" and
//    aad "<project>/<secretKey>": what `browserfn secrets set` sends; bound to the project and
//    name, the ciphertext cannot be replayed as another secret.
import { invalid } from '../domain/errors.js';
import { BOUND_INFO, ENC_BYTES, TAG_BYTES, UNBOUND, boundTo, openValue, type SealBinding, type Sealed } from './hpke.js';
import type { ProjectKeys } from './keypair.js';

export interface SealedInput {
  keypairId?: string;
  sealedSecretValue?: string;
  encapsulatedKey?: string;
  sealedValue?: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

function decodeBase64(value: string, field: string): Uint8Array {
  if (!BASE64.test(value)) throw invalid(`${field} must be standard base64`);
  return new Uint8Array(Buffer.from(value, 'base64'));
}

function sealedForm(input: SealedInput, project: string, secretKey: string): { sealed: Sealed; binding: SealBinding } {
  const native = input.encapsulatedKey !== undefined || input.sealedValue !== undefined;
  if (input.sealedSecretValue !== undefined && !native) {
    const bytes = decodeBase64(input.sealedSecretValue, 'sealedSecretValue');
    if (bytes.length < ENC_BYTES + TAG_BYTES) {
      throw invalid(`sealedSecretValue is ${bytes.length} bytes; it must hold the ${ENC_BYTES}-byte encapsulated key followed by the ciphertext and its ${TAG_BYTES}-byte tag`);
    }
    return { sealed: { enc: bytes.subarray(0, ENC_BYTES), ciphertext: bytes.subarray(ENC_BYTES) }, binding: UNBOUND };
  }
  if (input.sealedSecretValue === undefined && input.encapsulatedKey !== undefined && input.sealedValue !== undefined) {
    const enc = decodeBase64(input.encapsulatedKey, 'encapsulatedKey');
    const ciphertext = decodeBase64(input.sealedValue, 'sealedValue');
    if (enc.length !== ENC_BYTES) throw invalid(`encapsulatedKey is ${enc.length} bytes; an X25519 encapsulated key is ${ENC_BYTES} bytes`);
    if (ciphertext.length < TAG_BYTES) throw invalid(`sealedValue is ${ciphertext.length} bytes; it must end with the ${TAG_BYTES}-byte AES-GCM tag`);
    return { sealed: { enc, ciphertext }, binding: boundTo(project, secretKey) };
  }
  throw invalid(
    "Send the value sealed with the project's public key (its key pair), either as sealedSecretValue alone, or as encapsulatedKey together with sealedValue",
  );
}

/** The plaintext value; an `invalid` DomainError when the request's sealed value does not open with the project's key. */
export async function openSealedInput(keys: ProjectKeys, project: string, secretKey: string, input: SealedInput): Promise<string> {
  if (input.keypairId !== undefined && input.keypairId !== keys.keypairId) {
    throw invalid(`keypairId ${input.keypairId.slice(0, 64)} is not this project's key pair: fetch the project's current key pair and seal the value again`);
  }
  const { sealed, binding } = sealedForm(input, project, secretKey);
  let plaintext: Uint8Array;
  try {
    plaintext = await openValue(keys.keyPair, sealed, binding);
  } catch {
    throw invalid(
      binding === UNBOUND
        ? 'sealedSecretValue does not open with this project\'s key: seal with the publicKey of the project\'s key pair (HPKE base mode, X25519/HKDF-SHA256/AES-256-GCM, empty info and aad) and send base64(enc || ciphertext)'
        : `sealedValue does not open with this project's key: seal with the publicKey of the project's key pair (HPKE base mode, X25519/HKDF-SHA256/AES-256-GCM), info "${BOUND_INFO}" and aad "${project}/${secretKey}"`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
  } catch {
    throw invalid('The secret value must be UTF-8 text');
  }
}
