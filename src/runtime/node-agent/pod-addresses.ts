// Pods on the host's network (unsandboxed, or sandboxed with BROWSERFN_SANDBOX_NETWORK=host) share
// its ports: two replicas of the chart's API would both bind 8080. Each such pod gets a loopback
// address of its own (all of 127.0.0.0/8 reaches lo on Linux, no set-up needed) as its podIP, and
// binds there (BROWSERFN_HOST), as pods of a cluster each have an IP of their own.
export class PodAddresses {
  private readonly inUse = new Set<string>();
  private next = 0;

  /** 127.0.0.2 to 127.0.0.254, 127.0.1.x next, …; 127.0.0.1 stays the host's. */
  acquire(): string {
    for (let tries = 0; tries < 65_000; tries++) {
      this.next = (this.next % 65_000) + 1;
      const n = this.next + 1;
      const address = `127.0.${Math.floor(n / 254)}.${(n % 254) + 1}`;
      if (address !== '127.0.0.1' && !this.inUse.has(address)) {
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
