/**
 * Advisory domain rules. A rule matches when its tool matches and some string anywhere in the
 * input is (or contains) an http(s) URL whose host equals a listed domain, or is a subdomain
 * of a `*.`-listed one. The result only ever lands in the audit: this module cannot change a
 * verdict, and it is not containment (spec/mcp.md: a server we do not control can fetch
 * whatever it likes).
 *
 * The input is model-produced and may be hostile, so the walk is iterative and breadth
 * first (no recursion to blow the stack; shallow strings before deep ones), visits each
 * object once (cycles, shared subtrees), and stops at a budget of nodes, characters and URL
 * candidates. A single string longer than the remaining character budget is not scanned at
 * all. Hitting the budget marks the scan incomplete in
 * the audit rather than failing the call: advisory telemetry must not become a denial of
 * service against legitimate large inputs.
 */
import { namesInclude } from './rules.js';
import type { DomainRule } from './types.js';

export interface DomainScanBudget {
  /** Values visited (objects, arrays, strings, keys, scalars). */
  readonly maxNodes: number;
  /** String characters examined for URLs, in total. */
  readonly maxChars: number;
  /** URL candidates parsed, in total. */
  readonly maxUrls: number;
}

export const DEFAULT_DOMAIN_SCAN_BUDGET: DomainScanBudget = Object.freeze({
  maxNodes: 10_000,
  maxChars: 1_000_000,
  maxUrls: 1_000,
});

export interface DomainScan {
  readonly matched: readonly DomainRule[];
  /** False when the budget cut the walk short; `matched` may then miss rules. */
  readonly complete: boolean;
}

/** A listed domain, normalised with the same URL parser that reads the input. */
export type DomainPattern = { readonly exact: string } | { readonly suffix: string };

/**
 * Normalises `'example.com'` or `'*.example.com'` (case, IDN to punycode, trailing dot), or
 * returns undefined for anything that is not a bare host: validation refuses those.
 */
export function parseDomainPattern(pattern: string): DomainPattern | undefined {
  const wildcard = pattern.startsWith('*.');
  const bare = wildcard ? pattern.slice(2) : pattern;
  if (/[\s/:@?#\\[\]*%]/.test(bare)) return undefined;
  let host: string;
  try {
    // An empty host (`''`, `'*.'`) is refused by the parser itself.
    host = normalizeHost(new URL(`http://${bare}/`).hostname);
  } catch {
    return undefined;
  }
  if (host === '') return undefined;
  return wildcard ? { suffix: `.${host}` } : { exact: host };
}

/** The URL parser already lowercased an http(s) host and converted IDN; only the trailing dot remains. */
function normalizeHost(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

function hostMatches(pattern: DomainPattern, host: string): boolean {
  return 'exact' in pattern ? host === pattern.exact : host.endsWith(pattern.suffix);
}

/** URLs embedded in prose or commands (`curl https://…`), trailing punctuation trimmed. */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>`{}|\\^]+/gi;
const TRAILING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
/** Longer than any real URL's authority part needs; the host is all a rule looks at. */
const MAX_URL_CHARS = 4_096;

function* urlCandidates(text: string): Generator<string> {
  const trimmed = text.trim();
  // The whole string first, so the URL parser's own leniency (tabs, backslashes) applies.
  if (/^https?:/i.test(trimmed)) yield trimmed.slice(0, MAX_URL_CHARS);
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const candidate = trimTrailingPunctuation(match[0].slice(0, MAX_URL_CHARS));
    if (candidate !== trimmed) yield candidate;
  }
}

/**
 * A loop, not a `[…]+$` regex: that one backtracks quadratically on long punctuation runs.
 * It stops at the start by itself, where `candidate[-1]` is undefined and not punctuation.
 */
function trimTrailingPunctuation(candidate: string): string {
  let end = candidate.length;
  while (TRAILING_PUNCTUATION.has(candidate[end - 1] as string)) end -= 1;
  return candidate.slice(0, end);
}

/** Every candidate starts with `http:` or `https:`, so whatever parses is an http(s) URL. */
function httpHost(candidate: string): string | undefined {
  try {
    return normalizeHost(new URL(candidate).hostname);
  } catch {
    return undefined;
  }
}

const NOTHING_TO_SCAN: DomainScan = Object.freeze({ matched: Object.freeze([]), complete: true });

export function scanDomains(
  rules: readonly DomainRule[],
  toolName: string,
  input: unknown,
  budget: DomainScanBudget = DEFAULT_DOMAIN_SCAN_BUDGET,
): DomainScan {
  // Most configs have no domain rules: nothing to walk, and nothing worth allocating per call.
  if (rules.length === 0) return NOTHING_TO_SCAN;
  // The same rule object listed twice (merged configs sharing it) is one rule.
  const live = [...new Set(rules)]
    .filter((rule) => namesInclude(rule.tool, toolName))
    .map((rule) => ({ rule, patterns: rule.domains.map(parseDomainPattern).filter((p) => p !== undefined) }));

  const matched = new Set<DomainRule>();
  let nodes = 0;
  let chars = 0;
  let urls = 0;

  /** Returns false when a budget ran out inside this string. */
  const examine = (text: string): boolean => {
    chars += text.length;
    if (chars > budget.maxChars) return false;
    for (const candidate of urlCandidates(text)) {
      if (++urls > budget.maxUrls) return false;
      const host = httpHost(candidate);
      if (host === undefined) continue;
      for (const { rule, patterns } of live) {
        if (!matched.has(rule) && patterns.some((p) => hostMatches(p, host))) matched.add(rule);
      }
    }
    return true;
  };

  // Breadth first, so a URL near the top is found even when a deep branch exhausts the
  // budget: hostile nesting cannot hide a shallow match. `head` walks the queue without
  // shifting it.
  const queue: unknown[] = [input];
  let head = 0;
  const seen = new Set<object>();
  let complete = true;
  try {
    // Stops early once every live rule matched (at once when no rule applies to this tool):
    // nothing further could change the result.
    while (head < queue.length && matched.size < live.length) {
      nodes += 1;
      const next = queue[head];
      queue[head] = undefined; // let visited subtrees be collected
      head += 1;
      if (typeof next === 'string') {
        if (!examine(next)) return finish(false);
        continue;
      }
      if (typeof next !== 'object' || next === null || seen.has(next)) continue;
      seen.add(next);
      // Never queue more than the node budget could still visit: visited plus queued stays
      // within maxNodes, which is what bounds the walk (and keeps one huge array from making
      // it allocate without bound).
      const room = (): number => budget.maxNodes - nodes - (queue.length - head);
      if (Array.isArray(next)) {
        const take = Math.min(next.length, Math.max(room(), 0));
        if (take < next.length) complete = false;
        for (let i = 0; i < take; i += 1) queue.push(next[i]);
      } else {
        for (const key in next) {
          if (!Object.prototype.hasOwnProperty.call(next, key)) continue;
          if (room() < 2) {
            complete = false;
            break;
          }
          queue.push(key, (next as Record<string, unknown>)[key]);
        }
      }
    }
  } catch {
    // A throwing getter or proxy trap (host-made input only; model input is plain JSON).
    complete = false;
  }
  return finish(complete);

  function finish(done: boolean): DomainScan {
    const list = live.map((l) => l.rule).filter((rule) => matched.has(rule));
    return { matched: list, complete: done || matched.size === live.length };
  }
}
