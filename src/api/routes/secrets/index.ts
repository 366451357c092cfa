// The secrets routes. The fixed path /v1/secrets/keypair comes before /v1/secrets/:id, which would shadow it.
import type { RouteDefinition } from '../../route.js';
import listFunctionSecrets from './list-function-secrets.js';
import attachFunctionSecret from './attach-function-secret.js';
import detachFunctionSecret from './detach-function-secret.js';
import getKeypair from './get-keypair.js';
import createSecret from './create-secret.js';
import listSecrets from './list-secrets.js';
import getSecret from './get-secret.js';
import updateSecret from './update-secret.js';
import deleteSecret from './delete-secret.js';

export const secretRoutes: RouteDefinition[] = [
  listFunctionSecrets,
  attachFunctionSecret,
  detachFunctionSecret,
  getKeypair,
  createSecret,
  listSecrets,
  getSecret,
  updateSecret,
  deleteSecret,
];
