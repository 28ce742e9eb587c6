import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyAddress, type AddressClass } from '../../src/webhooks/addresses.ts';

const CASES: Array<[string, AddressClass]> = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', 'public'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.1', 'public'],
  ['169.254.169.254', 'metadata'],
  ['169.254.1.1', 'link_local'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.20.0.1', 'public'],
  ['192.0.2.7', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['2606:4700:4700::1111', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456::1', 'unique_local'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['4000::1', 'reserved'],
  // IPv4-mapped, -compatible and -translated forms take the class of the IPv4 they carry.
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:a00:1', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:8.8.8.8', 'public'],
  ['::10.0.0.1', 'private'],
  ['::ffff:0:7f00:1', 'loopback'],
  // NAT64 and 6to4 reach the IPv4 they embed.
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:a00:1::1', 'private'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:808:808::1', 'public'],
];

const test = suite('Webhook addresses: classification');

test('classifies IPv4, IPv6 and IPv6 forms carrying an IPv4', () => {
  for (const [ip, expected] of CASES) assert.is(classifyAddress(ip), expected, ip);
});

test('anything that is not an IP address is an error, not a class', () => {
  for (const text of ['localhost', '', '1.2.3', '::ffff:999.0.0.1', '10.0.0.1/8']) {
    assert.throws(() => classifyAddress(text), /not an IP address/, text);
  }
});

test.run();
