// GET /v1/secrets/keypair — the project's HPKE public key that clients seal secret values to.
import { defineRoute } from '../../route.js';
import { projectKeys } from '../../../secrets/keypair.js';
import { BOUND_INFO, SUITE } from '../../../secrets/hpke.js';

export default defineRoute<unknown, unknown, unknown>({
  method: 'get',
  path: '/v1/secrets/keypair',
  operationId: 'Secrets_getKeypair',
  summary: "The project's public key for sealing secret values",
  tags: ['secrets'],
  responses: {
    200: {
      description: '{id, publicKey (base64 of the raw 32-byte X25519 key), projectId, suite, bound}',
      schema: {
        type: 'object',
        required: ['id', 'publicKey', 'projectId', 'suite'],
        properties: {
          id: { type: 'string', description: 'The key pair ID; send it back as keypairId' },
          publicKey: { type: 'string', description: 'base64 of the raw 32-byte X25519 public key' },
          projectId: { type: 'string', description: 'The project; part of the aad of the bound form' },
          suite: { type: 'object', description: 'The HPKE mode and algorithms' },
          bound: { type: 'object', description: 'info and aad of the encapsulatedKey + sealedValue form' },
        },
      },
    },
  },
  async handle(ctx, _input, deps) {
    const keys = await projectKeys(deps.cluster, ctx.state.project);
    ctx.body = {
      id: keys.keypairId,
      publicKey: Buffer.from(keys.publicKey).toString('base64'),
      projectId: ctx.state.project,
      suite: SUITE,
      bound: { info: BOUND_INFO, aad: `${ctx.state.project}/<secretKey>` },
    };
  },
});
