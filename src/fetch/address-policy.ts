// The SSRF guard: which IP addresses the fetcher may connect to. Only globally routable unicast
// addresses pass by default; loopback, private, link-local (cloud metadata lives there), unique-local,
// multicast, carrier-grade NAT, reserved and unspecified addresses are refused, including IPv4
// addresses hidden inside IPv6 (mapped, NAT64, 6to4).
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
    if (embedded) return this.refusal(embedded.toString());
    const range = address.range();
    return range === 'unicast' ? undefined : (RANGE_NAMES[range] ?? `a ${range} address`);
  }
}

/** The IPv4 address inside an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 IPv6 address. */
function embeddedIpv4(address: Address): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return v6.toIPv4Address();
  const parts = v6.parts;
  if (range === 'rfc6052') return ipv4FromWords(parts[6], parts[7]);
  if (range === '6to4') return ipv4FromWords(parts[1], parts[2]);
  return undefined;
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
