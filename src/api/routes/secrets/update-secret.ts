// PATCH /v1/secrets/{id} — replaces a secret's value (sealed like on create); the ID, the name and
// the Function attachments stay. Invocations started afterwards receive the new value.
import { defineRoute } from '../../route.js';
import { projectKeys } from '../../../secrets/keypair.js';
import { openSealedInput, type SealedInput } from '../../../secrets/sealed-value.js';
import { getSecret, updateSecretValue } from '../../../secrets/store.js';
import { secretView } from '../../../secrets/listing.js';
import { error, sealedInputProperties, secretSchema, uuidParams } from './schemas.js';

export default defineRoute<{ id: string }, unknown, SealedInput>({
  method: 'patch',
  path: '/v1/secrets/:id',
  operationId: 'Secrets_update',
  summary: "Replace a project secret's value",
  tags: ['secrets'],
  request: {
    params: uuidParams('id'),
    body: { type: 'object', additionalProperties: false, properties: sealedInputProperties },
    bodyLimit: 256 * 1024,
  },
  responses: {
    200: { description: '{id, secretKey}', schema: secretSchema },
    400: error('Invalid secret ID, or a sealed value that does not open with the project key'),
    404: error('The secret does not exist in the project'),
  },
  async handle(ctx, { params, body }, deps) {
    const project = ctx.state.project;
    const { meta } = await getSecret(deps.cluster, project, params.id);
    const value = await openSealedInput(await projectKeys(deps.cluster, project), project, meta.secretKey, body);
    await updateSecretValue(deps.cluster, project, meta.id, value);
    deps.log.info({ requestId: ctx.state.requestId, project, secretId: meta.id, secretKey: meta.secretKey }, 'secret value replaced');
    ctx.body = secretView(meta);
  },
});
