// The in-pod client of the control plane: how long each call rides out a control plane that is away.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ControlPlaneClient } from '../../src/runtime/agent-common/control-plane-client.js';

describe('control plane client (in pods)', function () {
  this.timeout(60_000);
  let server: Server;
  let asked = 0;
  let unavailableFor = 0;

  before(async () => {
    server = createServer((req, res) => {
      asked += 1;
      // The API pods rolling: every answer a 503 for a while, then the assignment.
      if (asked <= unavailableFor) {
        res.statusCode = 503;
        res.end('no endpoints available');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ invocationId: 'i-1', path: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = () => new ControlPlaneClient({ controlUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespace: 'p', podName: 'member-1', podToken: 't' });

  it('a waiting pool member asks again through a control plane away for seconds (a roll of the API pods), and gets its assignment', async () => {
    asked = 0;
    unavailableFor = 5;
    const input = (await client().waitForAssignment(0)) as { invocationId: string; path: string };
    assert.equal(input.invocationId, 'i-1');
    assert.equal(input.path, '/internal/v1/pods/p/member-1/assignment?waitSeconds=0');
    assert.equal(asked, 6, 'five refused asks, then the one answered');
  });

  it('an input fetch gives up sooner: a cold pod that cannot start is failed and started again by its controller', async () => {
    asked = 0;
    unavailableFor = 5;
    await assert.rejects(client().getInput(), /GET \/input: HTTP 503/);
    assert.equal(asked, 3);
  });
});
