/**
 * The formats this validator asserts. Any other `format` (uri-template, idn-hostname, iri,
 * the non-standard "url", …) is an annotation, as JSON Schema 2020-12 makes every format by
 * default: it describes the value and checks nothing. Each check is linear in the string,
 * and is charged by its length before it runs.
 */
import type { WorkMeter } from '../../budget.js';
import { compilePattern } from '../../pattern/index.js';
import { isDate, isDateTime, isDuration, isTime } from './dates.js';
import { isEmail, isHostname, isIpv4, isIpv6, isUuid } from './network.js';
import { isJsonPointer, isRelativeJsonPointer, isUriReference } from './uri.js';

export type FormatCheck = (text: string, meter: WorkMeter) => boolean;

const plain = (check: (text: string) => boolean): FormatCheck => (text, meter) => {
  meter.spend(text.length);
  return check(text);
};

/**
 * Compiling a pattern costs far more per character than scanning one: up to ~5 µs for a
 * character of `\p{…}` classes (native builds each property table), so 256 units keep it
 * near the ~20 ns per unit the allowance is calibrated on (limits.ts).
 */
const REGEX_COST_PER_CHARACTER = 256;

/**
 * `regex`: whether the pattern engine accepts the string. That is stricter than "any
 * ECMA-262 regular expression" (it refuses what it cannot match in linear time), and it is
 * what a `pattern` built from the value would need anyway.
 */
const regex: FormatCheck = (text, meter) => {
  meter.spend(REGEX_COST_PER_CHARACTER * text.length);
  try {
    compilePattern(text);
    return true;
  } catch {
    return false;
  }
};

export const FORMATS: ReadonlyMap<string, FormatCheck> = new Map([
  ['date-time', plain(isDateTime)],
  ['date', plain(isDate)],
  ['time', plain(isTime)],
  ['duration', plain(isDuration)],
  ['email', plain(isEmail)],
  ['hostname', plain(isHostname)],
  ['ipv4', plain(isIpv4)],
  ['ipv6', plain(isIpv6)],
  ['uuid', plain(isUuid)],
  ['uri', plain((text) => isUriReference(text, true))],
  ['uri-reference', plain((text) => isUriReference(text, false))],
  ['json-pointer', plain(isJsonPointer)],
  ['relative-json-pointer', plain(isRelativeJsonPointer)],
  ['regex', regex],
]);
