/**
 * RFC 3986 URIs (`uri`: a scheme is required) and URI references (`uri-reference`: relative
 * ones too), plus RFC 6901 JSON pointers and relative JSON pointers. Each is a left-to-right
 * scan over character classes; the URI grammar is split at its delimiters (`#`, `?`, `//`,
 * `@`, `:`) first, so no part is ever re-scanned.
 */
import { isIpv4, isIpv6 } from './network.js';

const SUB_DELIMS = "!$&'()*+,;=";

function isAlpha(char: string | undefined): boolean {
  const code = char === undefined ? 0 : char.charCodeAt(0);
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(char: string | undefined): boolean {
  const code = char === undefined ? 0 : char.charCodeAt(0);
  return code >= 48 && code <= 57;
}

function isUnreserved(char: string): boolean {
  return isAlpha(char) || isDigit(char) || char === '-' || char === '.' || char === '_' || char === '~';
}

function isHex(char: string | undefined): boolean {
  return char !== undefined && char.length === 1 && '0123456789abcdefABCDEF'.includes(char);
}

/** Every character unreserved, a sub-delim, one of `extra`, or a %XX escape. */
function allowed(text: string, extra: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (char === '%') {
      if (!isHex(text[i + 1]) || !isHex(text[i + 2])) return false;
      i += 2;
    } else if (!isUnreserved(char) && !SUB_DELIMS.includes(char) && !extra.includes(char)) return false;
  }
  return true;
}

/** ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
function isScheme(text: string): boolean {
  if (!isAlpha(text[0])) return false;
  for (let i = 1; i < text.length; i += 1) {
    const char = text[i];
    if (!isAlpha(char) && !isDigit(char) && char !== '+' && char !== '-' && char !== '.') return false;
  }
  return true;
}

/** IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
function isIpFuture(literal: string): boolean {
  if (literal[0] !== 'v' && literal[0] !== 'V') return false;
  const dot = literal.indexOf('.');
  if (dot < 2 || dot === literal.length - 1) return false;
  for (let i = 1; i < dot; i += 1) if (!isHex(literal[i])) return false;
  return allowed(literal.slice(dot + 1), ':');
}

function isAuthority(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (at >= 0 && !allowed(authority.slice(0, at), ':')) return false;
  const hostPort = authority.slice(at + 1);
  let host = hostPort;
  let port = '';
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return false;
    const literal = hostPort.slice(1, close);
    if (!isIpFuture(literal) && !isIpv6(literal)) return false;
    host = '';
    const after = hostPort.slice(close + 1);
    if (after !== '' && after[0] !== ':') return false;
    port = after.slice(1);
  } else {
    const colon = hostPort.indexOf(':');
    if (colon >= 0) [host, port] = [hostPort.slice(0, colon), hostPort.slice(colon + 1)];
  }
  for (let i = 0; i < port.length; i += 1) if (!isDigit(port[i])) return false;
  return isIpv4(host) || allowed(host, '');
}

/** A URI (`requireScheme`) or a URI reference. */
export function isUriReference(text: string, requireScheme: boolean): boolean {
  let rest = text;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    if (!allowed(rest.slice(hash + 1), ':@/?')) return false;
    rest = rest.slice(0, hash);
  }
  const question = rest.indexOf('?');
  if (question >= 0) {
    if (!allowed(rest.slice(question + 1), ':@/?')) return false;
    rest = rest.slice(0, question);
  }
  const colon = rest.indexOf(':');
  const slash = rest.indexOf('/');
  if (colon >= 0 && (slash < 0 || colon < slash)) {
    // A colon in the first segment: the reference must begin with a scheme.
    if (!isScheme(rest.slice(0, colon))) return false;
    rest = rest.slice(colon + 1);
  } else if (requireScheme) return false;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    if (!isAuthority(end < 0 ? rest.slice(2) : rest.slice(2, end))) return false;
    rest = end < 0 ? '' : rest.slice(end);
  }
  return allowed(rest, ':@/');
}

/** RFC 6901: empty, or `/`-separated tokens where `~` only starts `~0` or `~1`. */
export function isJsonPointer(text: string): boolean {
  if (text !== '' && text[0] !== '/') return false;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '~' && text[i + 1] !== '0' && text[i + 1] !== '1') return false;
  }
  return true;
}

/**
 * Relative JSON pointer: a non-negative integer (no leading zeros), an optional index
 * adjustment (+N or -N, N positive), then `#` or a JSON pointer.
 */
export function isRelativeJsonPointer(text: string): boolean {
  let i = 0;
  while (isDigit(text[i])) i += 1;
  if (i === 0 || (i > 1 && text[0] === '0')) return false;
  if (text[i] === '+' || text[i] === '-') {
    const start = (i += 1);
    while (isDigit(text[i])) i += 1;
    if (i === start || text[start] === '0') return false;
  }
  const rest = text.slice(i);
  return rest === '#' || isJsonPointer(rest);
}
