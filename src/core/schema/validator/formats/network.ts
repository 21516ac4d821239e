/**
 * Addresses and names: `ipv4`, `ipv6`, `hostname`, `email` and `uuid`, each a hand-written
 * scan that looks at every character a bounded number of times. ASCII only where the RFCs
 * say ASCII: a Bengali digit is not a digit of an IP address.
 */

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

function isAlphaNumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * RFC 2673 dotted-quad: four decbytes of 1-3 ASCII digits, each at most 255. Leading zeros
 * are allowed, as RFC 2673 and the 2020-12 test suite have it (and the oracle agrees), except
 * with `strict`: the dec-octet of RFC 3986 that an IPv6 address's IPv4 tail is written in.
 */
export function isIpv4(text: string, strict = false): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (const part of parts) {
    if (part.length === 0 || part.length > 3 || (strict && part.length > 1 && part[0] === '0')) return false;
    let value = 0;
    for (let i = 0; i < part.length; i += 1) {
      const code = part.charCodeAt(i);
      if (code < 48 || code > 57) return false;
      value = value * 10 + (code - 48);
    }
    if (value > 255) return false;
  }
  return true;
}

/** Groups of a colon-separated half of an IPv6 address, or -1 when malformed. */
function ipv6Groups(half: string, last: boolean): number {
  if (half === '') return 0;
  const groups = half.split(':');
  let count = 0;
  for (let g = 0; g < groups.length; g += 1) {
    const group = groups[g] as string;
    if (last && g === groups.length - 1 && group.includes('.')) {
      if (!isIpv4(group, true)) return -1;
      count += 2;
      continue;
    }
    if (group.length === 0 || group.length > 4) return -1;
    for (let i = 0; i < group.length; i += 1) if (!isHexDigit(group.charCodeAt(i))) return -1;
    count += 1;
  }
  return count;
}

/**
 * RFC 4291 text form: eight hex groups, one `::` standing for one or more zero groups, an
 * embedded IPv4 tail; no zone id.
 */
export function isIpv6(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap < 0) return ipv6Groups(text, true) === 8;
  if (text.indexOf('::', gap + 1) >= 0) return false;
  const head = ipv6Groups(text.slice(0, gap), false);
  const tail = ipv6Groups(text.slice(gap + 2), true);
  return head >= 0 && tail >= 0 && head + tail <= 7;
}

/**
 * RFC 1123 host name: dot-separated labels of 1-63 letters, digits and inner hyphens, at
 * most 253 characters. Punycode labels (xn--) are ASCII and pass as such.
 */
export function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  for (const label of text.split('.')) {
    if (label.length === 0 || label.length > 63) return false;
    if (label[0] === '-' || label[label.length - 1] === '-') return false;
    for (let i = 0; i < label.length; i += 1) {
      const code = label.charCodeAt(i);
      if (!isAlphaNumeric(code) && code !== 45) return false;
    }
  }
  return true;
}

/** RFC 5322 atext (plus the dot of a dot-atom). */
const ATEXT = "!#$%&'*+-/=?^_`{|}~.";

function isLocalPart(local: string): boolean {
  if (local.length === 0 || local.length > 64) return false;
  if (local[0] === '"') return true; // a quoted local part was checked while finding its end
  if (local[0] === '.' || local.endsWith('.') || local.includes('..')) return false;
  for (let i = 0; i < local.length; i += 1) {
    const code = local.charCodeAt(i);
    if (!isAlphaNumeric(code) && !ATEXT.includes(local[i] as string)) return false;
  }
  return true;
}

/** The index just past a quoted local part starting at 0, or -1 when it is malformed. */
function quotedEnd(text: string): number {
  for (let i = 1; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 92) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0x20 && next <= 0x7e)) return -1;
      i += 1;
    } else if (code === 34) return i + 1;
    else if (code < 0x20 || code > 0x7e) return -1;
  }
  return -1;
}

/** addr-spec: local part (dot-atom or quoted) "@" a host name or a bracketed IP literal. */
export function isEmail(text: string): boolean {
  const at = text[0] === '"' ? quotedEnd(text) : text.indexOf('@');
  if (at <= 0 || text[at] !== '@') return false;
  const host = text.slice(at + 1);
  if (!isLocalPart(text.slice(0, at)) || host.length > 253) return false;
  if (host.startsWith('[') && host.endsWith(']')) {
    const literal = host.slice(1, -1);
    return literal.slice(0, 5).toLowerCase() === 'ipv6:' ? isIpv6(literal.slice(5)) : isIpv4(literal);
  }
  return isHostname(host);
}

/** 8-4-4-4-12 hex digits. */
export function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i += 1) {
    const dash = i === 8 || i === 13 || i === 18 || i === 23;
    if (dash ? text[i] !== '-' : !isHexDigit(text.charCodeAt(i))) return false;
  }
  return true;
}
