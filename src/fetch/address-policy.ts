// The SSRF guard: which IP addresses the fetcher may connect to. Only globally routable unicast
// addresses pass by default; loopback, private, link-local (cloud metadata lives there), unique-local,
// multicast, carrier-grade NAT, reserved and unspecified addresses are refused. IPv6 forms that
// carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that address;
// Teredo is refused whole (its client address is only reachable through a relay).
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressPolicyOptions {
  allowPrivate: boolean;
  allowCidrs: [Address, number][];
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  uniqueLocal: 'a unique-local address',
  multicast: 'a multicast address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT address',
  as112: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a reserved address',
  discard: 'a discard-only address',
};

export class AddressPolicy {
  constructor(private readonly options: AddressPolicyOptions) {}

  /** Undefined when the address may be used, else why not ("a loopback address"). */
  refusal(ip: string): string | undefined {
    if (this.options.allowPrivate) return undefined;
    let address: Address;
    try {
      address = ipaddr.parse(ip);
    } catch {
      return 'not an IP address';
    }
    if (this.options.allowCidrs.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits))) return undefined;
    const embedded = embeddedIpv4(address);
    for (const ipv4 of embedded) {
      const refusal = this.refusal(ipv4.toString());
      if (refusal) return `${refusal} (${ipv4} inside the IPv6 address)`;
    }
    if (embedded.length > 0) return undefined;
    const range = address.range();
    return range === 'unicast' ? undefined : (RANGE_NAMES[range] ?? `a ${range} address`);
  }
}

/** The IPv4 addresses an IPv6 address carries; it is refused when any of them is. */
function embeddedIpv4(address: Address): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const v6 = address as ipaddr.IPv6;
  const parts = v6.parts;
  const range = v6.range();
  if (range === 'ipv4Mapped') return [v6.toIPv4Address()];
  if (range === '6to4') return [ipv4FromWords(parts[1], parts[2])];
  // IPv4-compatible (::a.b.c.d, RFC 4291 2.5.5.1, deprecated but still routed by some stacks); :: and ::1 keep their own names.
  if (range === 'unicast' && parts.slice(0, 6).every((word) => word === 0)) return [ipv4FromWords(parts[6], parts[7])];
  if (range !== 'rfc6052') return [];
  const lastWords = ipv4FromWords(parts[6], parts[7]);
  // The well-known prefix 64:ff9b::/96 has one layout: the last 32 bits.
  if (parts[2] === 0) return [lastWords];
  // The local-use prefix 64:ff9b:1::/48 (RFC 8215) may be deployed at any RFC 6052 length from /48 to /96.
  return [lastWords, ...[48, 56, 64].flatMap((length) => rfc6052Layout(v6.toByteArray(), length))];
}

/** The IPv4 address at prefix length `length` of RFC 6052 2.2 (bits 64–71 skipped), when the suffix after it is zero. */
function rfc6052Layout(bytes: number[], length: number): ipaddr.IPv4[] {
  const carrier = [...bytes.slice(length / 8, 8), ...bytes.slice(9)];
  const [ipv4, suffix] = [carrier.slice(0, 4), carrier.slice(4)];
  return suffix.every((b) => b === 0) ? [new ipaddr.IPv4(ipv4)] : [];
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
