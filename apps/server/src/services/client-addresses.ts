import { isIPv6 } from 'node:net';

/**
 * The key a client's address is counted under in a per-address budget. An IPv6 client holds at
 * least a whole /64 and picks any address in it, so the /64 is what is counted; an IPv4-mapped
 * IPv6 address is the IPv4 client it maps.
 */
export function budgetKeyOfAddress(address: string): string {
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, whatever its notation. */
function ipv6Groups(address: string): number[] {
  const [withoutZone = ''] = address.split('%');
  const [head = '', tail] = withoutZone.split('::');
  const partsOf = (text: string) => (text === '' ? [] : text.split(':').flatMap(groupsOfPart));
  const first = partsOf(head);
  const last = tail === undefined ? [] : partsOf(tail);
  const missing = 8 - first.length - last.length;
  return [...first, ...Array<number>(Math.max(0, missing)).fill(0), ...last];
}

/** One group, or the two groups of a dotted IPv4 tail. */
function groupsOfPart(part: string): number[] {
  if (!part.includes('.')) return [Number.parseInt(part, 16)];
  const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
  return [(a << 8) | b, (c << 8) | d];
}
