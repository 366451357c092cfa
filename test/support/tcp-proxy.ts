// A TCP relay on 127.0.0.1 between a client and a server: it counts the connections it holds open
// (a socket leak shows up as a growing count) and can cut them all (a network failure).
import net from 'node:net';

export class TcpProxy {
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private server?: net.Server;
  accepted = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async listen(): Promise<number> {
    this.server = net.createServer((client) => {
      this.accepted += 1;
      const upstream = net.connect(this.targetPort, this.targetHost);
      const pair = { client, upstream };
      this.pairs.add(pair);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return (this.server!.address() as net.AddressInfo).port;
  }

  /** Connections open right now. */
  get open(): number {
    return this.pairs.size;
  }

  /** Cuts every open connection, as a network failure would. */
  cutAll(): void {
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
