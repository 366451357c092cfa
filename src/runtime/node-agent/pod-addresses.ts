// Pods on the host's network (unsandboxed, or sandboxed with BROWSERFN_SANDBOX_NETWORK=host) share
// its ports: two replicas of the chart's API would both bind 8080. Each such pod gets a loopback
// address of its own (all of 127.0.0.0/8 reaches lo on Linux, no set-up needed) as its podIP, and
// binds there (BROWSERFN_HOST), as pods of a cluster each have an IP of their own.
/** Addresses handed out in turn (127.<octet>.0.2 … 127.<octet>.255.x): a released one is not reused at once. */
const ADDRESSES = 65_000;

export class PodAddresses {
  private readonly inUse = new Set<string>();
  private last = 0;

  /** `octet`: the node agent's own second octet (host-ids.ts), so two agents on one host never share an address. */
  constructor(private readonly octet: number) {}

  /** 127.<octet>.0.2 to .0.254, then .1.1 to .1.254, …, round again; 127.0.0.1 stays the host's. */
  acquire(): string {
    for (let tries = 0; tries < ADDRESSES; tries++) {
      this.last = (this.last % ADDRESSES) + 1;
      const address = `127.${this.octet}.${Math.floor(this.last / 254)}.${(this.last % 254) + 1}`;
      if (!this.inUse.has(address)) {
        this.inUse.add(address);
        return address;
      }
    }
    throw new Error('no free loopback address for a pod');
  }

  release(address: string): void {
    this.inUse.delete(address);
  }
}
