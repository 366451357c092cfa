// Attack: reaching an internal IPv4 address through an IPv6 form that carries it (issue 8 item 6).
// The guard judges IPv4-mapped, IPv4-compatible, NAT64 (well-known and local-use) and 6to4
// addresses by the IPv4 address inside them, and refuses Teredo whole.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { AddressPolicy } from '../../src/fetch/address-policy.js';

const policy = new AddressPolicy({ allowPrivate: false, allowCidrs: [] });

/** Every IPv6 form that carries `v4` (dotted), as text. */
function embeddings(v4: string): Record<string, string> {
  const b = ipaddr.IPv4.parse(v4).toByteArray();
  const hex = (hi: number, lo: number): string => ((hi << 8) | lo).toString(16);
  const [w1, w2] = [hex(b[0], b[1]), hex(b[2], b[3])];
  return {
    'IPv4-mapped': `::ffff:${v4}`,
    'IPv4-mapped, hex words': `::ffff:${w1}:${w2}`,
    'IPv4-compatible': `::${v4}`,
    'IPv4-compatible, hex words': `::${w1}:${w2}`,
    'NAT64 well-known 64:ff9b::/96': `64:ff9b::${w1}:${w2}`,
    'NAT64 local-use, /96 layout': `64:ff9b:1::${w1}:${w2}`,
    'NAT64 local-use, /96 layout with a subnet': `64:ff9b:1:abcd::${w1}:${w2}`,
    'NAT64 local-use, /48 layout': `64:ff9b:1:${w1}:${hex(0, b[2])}:${hex(b[3], 0)}::`,
    'NAT64 local-use, /56 layout': `64:ff9b:1:${hex(0, b[0])}:${hex(0, b[1])}:${w2}::`,
    'NAT64 local-use, /64 layout': `64:ff9b:1:0:${hex(0, b[0])}:${hex(b[1], b[2])}:${hex(b[3], 0)}:0`,
    '6to4': `2002:${w1}:${w2}::1`,
  };
}

describe('attack: internal IPv4 addresses inside IPv6 forms', () => {
  const internal = ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0'];
  for (const v4 of internal) {
    for (const [form, v6] of Object.entries(embeddings(v4))) {
      it(`refuses ${v4} as ${form} (${v6})`, () => {
        const refusal = policy.refusal(v6);
        assert.ok(refusal, `${v6} passed the guard`);
        assert.ok(policy.refusal(v4), `${v4} itself must be refused for this test to mean anything`);
      });
    }
  }

  it('names the embedded address in the refusal', () => {
    assert.equal(policy.refusal('::7f00:1'), 'a loopback address (127.0.0.1 inside the IPv6 address)');
    assert.equal(policy.refusal('64:ff9b:1::a9fe:a9fe'), 'a link-local address (cloud metadata services live there) (169.254.169.254 inside the IPv6 address)');
  });

  it('judges public IPv4 addresses inside the same forms as public', () => {
    for (const [form, v6] of Object.entries(embeddings('8.8.8.8'))) {
      if (form.startsWith('NAT64 local-use, /') && !form.includes('/96')) continue; // their /96 reading is 0.0.0.x or similar: refused, rightly
      assert.equal(policy.refusal(v6), undefined, `${form}: ${v6}`);
    }
  });

  it('refuses Teredo addresses whole, whatever client they carry', () => {
    assert.ok(policy.refusal('2001:0:4136:e378:8000:63bf:3fff:fdd2'));
    assert.ok(policy.refusal('2001::ffff:fffe')); // client 0.0.0.1 obfuscated
  });

  it('keeps ::1 and :: under their own names', () => {
    assert.equal(policy.refusal('::1'), 'a loopback address');
    assert.equal(policy.refusal('::'), 'the unspecified address');
  });

  it('property: every IPv6 embedding of a loopback, private, link-local or shared IPv4 address is refused', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const internalV4 = fc.oneof(
      fc.tuple(octet, octet, octet).map(([a, b, c]) => `127.${a}.${b}.${c}`),
      fc.tuple(octet, octet, octet).map(([a, b, c]) => `10.${a}.${b}.${c}`),
      fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([a, b, c]) => `172.${a}.${b}.${c}`),
      fc.tuple(octet, octet).map(([a, b]) => `192.168.${a}.${b}`),
      fc.tuple(octet, octet).map(([a, b]) => `169.254.${a}.${b}`),
      fc.tuple(fc.integer({ min: 64, max: 127 }), octet, octet).map(([a, b, c]) => `100.${a}.${b}.${c}`),
    );
    fc.assert(
      fc.property(internalV4, (v4) => {
        for (const [form, v6] of Object.entries(embeddings(v4))) assert.ok(policy.refusal(v6), `${form} ${v6} of ${v4} passed`);
      }),
      { numRuns: 2000 },
    );
  });
});
