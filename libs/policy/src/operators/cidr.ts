import net from 'node:net';
import { showList, showValue } from '../describe';
import { describeType, type Operator } from './operator';

/** Most ranges one `cidr` condition may list. */
const MAX_RANGES = 1000;

/** `[address, prefix, family]` of a CIDR range such as `10.0.0.0/8` or `2001:db8::/32`, or why it is not one. */
function parseRange(s: string): [string, number, 'ipv4' | 'ipv6'] | string {
  const slash = s.indexOf('/');
  if (slash < 0) return 'must be a CIDR range like "10.0.0.0/8" or "2001:db8::/32" (address/prefix)';
  const address = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const family = net.isIP(address);
  if (family === 0) return `"${address}" is not an IPv4 or IPv6 address`;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max)
    return `the prefix length must be 0–${max} for IPv${family}`;
  return [address, Number(bits), family === 4 ? 'ipv4' : 'ipv6'];
}

/**
 * `cidr`: an IP address (a string, IPv4 or IPv6) inside one of the value's ranges, in CIDR notation
 * (RFC 4632 for IPv4, RFC 4291 §2.3 for IPv6), e.g. `resource.id` in `10.0.0.0/8` or
 * `arguments.host` in `["169.254.0.0/16", "fd00::/8"]` (cloud metadata, private networks). The value
 * is one range or a non-empty array of at most 1,000. Membership is Node's `net.BlockList`
 * (an IPv4 address also matches the IPv4-mapped IPv6 form of its range and back); strings that are
 * not IP addresses (host names, `1.2.3.4:80`) and other types never match.
 */
export const cidr: Operator = {
  operand: 'list',
  operandText: 'a CIDR range or a non-empty array of them (IPv4 / IPv6)',
  summary: 'is an IP address inside one of the ranges',
  example: { field: 'arguments.host', value: ['10.0.0.0/8', '169.254.0.0/16'] },
  cost: 4,
  check(value, ctx) {
    const ranges = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(ranges)) {
      ctx.report(`op "cidr" needs a CIDR range or an array of them, got ${describeType(value)}`);
      return;
    }
    if (ranges.length === 0) ctx.report('must hold at least one range');
    if (ranges.length > MAX_RANGES) ctx.report(`must hold at most ${MAX_RANGES} ranges`);
    ranges.forEach((r, i) => {
      const problem = typeof r === 'string' ? parseRange(r) : `must be a string, got ${describeType(r)}`;
      if (typeof problem === 'string') ctx.report(problem, typeof value === 'string' ? undefined : i);
    });
  },
  compile(get, v) {
    const list = new net.BlockList();
    for (const r of typeof v === 'string' ? [v] : (v as string[])) {
      const [address, prefix, family] = parseRange(r) as [string, number, 'ipv4' | 'ipv6'];
      list.addSubnet(address, prefix, family);
    }
    return (i) => {
      const x = get(i);
      if (typeof x !== 'string') return false;
      const family = net.isIP(x);
      return family !== 0 && list.check(x, family === 4 ? 'ipv4' : 'ipv6');
    };
  },
  text: (field, value) =>
    `${field} is in ${Array.isArray(value) ? showList(value) : showValue(value)} (CIDR)`,
};
