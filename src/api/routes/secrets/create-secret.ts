// POST /v1/secrets — stores a project secret. The value arrives sealed to the project's public key
// and is opened here, so it never travels or gets logged in the clear; one secretKey per project.
import { defineRoute } from '../../route.js';
import { projectKeys } from '../../../secrets/keypair.js';
import { assertSecretKey } from '../../../secrets/secret-key.js';
import { openSealedInput, type SealedInput } from '../../../secrets/sealed-value.js';
import { createSecret } from '../../../secrets/store.js';
import { secretView } from '../../../secrets/listing.js';
import { error, sealedInputProperties, secretSchema } from './schemas.js';

export default defineRoute<unknown, unknown, SealedInput & { secretKey: string }>({
  method: 'post',
  path: '/v1/secrets',
  operationId: 'Secrets_create',
  summary: 'Create a project secret from a value sealed with the project public key',
  tags: ['secrets'],
  request: {
    body: {
      type: 'object',
      required: ['secretKey'],
      additionalProperties: false,
      properties: { secretKey: secretSchema.properties.secretKey, ...sealedInputProperties },
    },
    bodyLimit: 256 * 1024,
  },
  responses: {
    201: { description: 'Created: {id, secretKey}', schema: secretSchema },
    400: error('Invalid secretKey, or a sealed value that does not open with the project key'),
    409: error('The project already has a secret with this secretKey'),
  },
  async handle(ctx, { body }, deps) {
    const project = ctx.state.project;
    assertSecretKey(body.secretKey);
    const value = await openSealedInput(await projectKeys(deps.cluster, project), project, body.secretKey, body);
    const meta = await createSecret(deps.cluster, project, body.secretKey, value);
    deps.log.info({ requestId: ctx.state.requestId, project, secretId: meta.id, secretKey: meta.secretKey }, 'secret created');
    ctx.status = 201;
    ctx.body = secretView(meta);
  },
});
