/**
 * RFC 3339 dates, times and durations (the grammar JSON Schema's `date`, `time`, `date-time`
 * and `duration` formats name), checked by hand in one pass over fixed positions: no regular
 * expression, so no input can make them slow.
 */

/** The value of `count` ASCII digits at `start`, or -1 when any of them is not one. */
function digitsAt(text: string, start: number, count: number): number {
  if (start + count > text.length) return -1;
  let value = 0;
  for (let i = start; i < start + count; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return -1;
    value = value * 10 + (code - 48);
  }
  return value;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS[month - 1] ?? 0);
}

/** full-date: YYYY-MM-DD, a day that exists (February 29th only in leap years). */
export function isDate(text: string): boolean {
  if (text.length !== 10 || text[4] !== '-' || text[7] !== '-') return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  return year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/**
 * full-time: HH:MM:SS[.fraction] then Z or ±HH:MM. A leap second (:60) is only valid at
 * 23:59 UTC, so the offset is applied before judging it.
 */
export function isTime(text: string): boolean {
  if (text.length < 9 || text[2] !== ':' || text[5] !== ':') return false;
  const hour = digitsAt(text, 0, 2);
  const minute = digitsAt(text, 3, 2);
  const second = digitsAt(text, 6, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return false;
  let i = 8;
  if (text[i] === '.') {
    const start = (i += 1);
    while (i < text.length && digitsAt(text, i, 1) >= 0) i += 1;
    if (i === start) return false;
  }
  let offset = 0;
  const zone = text[i];
  if (zone === 'Z' || zone === 'z') {
    if (i + 1 !== text.length) return false;
  } else if (zone === '+' || zone === '-') {
    if (text.length !== i + 6 || text[i + 3] !== ':') return false;
    const offsetHour = digitsAt(text, i + 1, 2);
    const offsetMinute = digitsAt(text, i + 4, 2);
    if (offsetHour < 0 || offsetHour > 23 || offsetMinute < 0 || offsetMinute > 59) return false;
    offset = (zone === '+' ? 1 : -1) * (offsetHour * 60 + offsetMinute);
  } else return false;
  if (second < 60) return true;
  const utcMinute = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
  return utcMinute === 23 * 60 + 59;
}

/** date-time: full-date "T" full-time (T and Z case-insensitive, as RFC 3339 allows). */
export function isDateTime(text: string): boolean {
  const separator = text[10];
  return (separator === 'T' || separator === 't') && isDate(text.slice(0, 10)) && isTime(text.slice(11));
}

const DATE_UNITS = 'YMD';
const TIME_UNITS = 'HMS';

/**
 * duration (RFC 3339 appendix A): P, then weeks alone, or date units in the order Y M D
 * and/or T with time units in the order H M S. Each run of units is contiguous: P1Y2D
 * skips the months and is not a duration; every unit carries at least one digit.
 */
export function isDuration(text: string): boolean {
  if (text[0] !== 'P') return false;
  let i = 1;
  let units = DATE_UNITS;
  let last = -1;
  let seen = 0;
  let inTime = false;
  while (i < text.length) {
    if (text[i] === 'T') {
      if (inTime || i + 1 === text.length) return false;
      inTime = true;
      units = TIME_UNITS;
      last = -1;
      i += 1;
      continue;
    }
    const start = i;
    while (i < text.length && digitsAt(text, i, 1) >= 0) i += 1;
    if (i === start || i === text.length) return false;
    const unit = text[i] as string;
    i += 1;
    if (unit === 'W' && !inTime) {
      // Weeks stand alone: nothing before them, nothing after.
      return seen === 0 && i === text.length;
    }
    const index = units.indexOf(unit);
    if (index < 0 || (last >= 0 && index !== last + 1)) return false;
    last = index;
    seen += 1;
  }
  return seen > 0 && (!inTime || last >= 0);
}
