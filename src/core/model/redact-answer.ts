/**
 * The engine's second line of defence for secrets (model/types.ts, `ModelAdapter.redact`): an
 * adapter that declares a `redact` has every string of its answer passed through it before
 * the answer is checked and journaled. The answer is the adapter's object, so it is scrubbed
 * on a JSON copy of its own (which checkResponse would have made of it anyway).
 */
import { scrubStrings } from '../secrets/walk.js';
import type { ModelAdapter } from './types.js';

/** `raw` as it is when the adapter declares no `redact`; else a scrubbed JSON copy of it. Throws what a broken answer or `redact` throws. */
export function redactAnswer(adapter: ModelAdapter, raw: unknown): unknown {
  const redact: unknown = adapter.redact;
  if (redact === undefined) return raw;
  if (typeof redact !== 'function') throw new TypeError('the adapter declares a redact that is not a function');
  const text = JSON.stringify(raw);
  if (text === undefined) return raw;
  return scrubStrings(JSON.parse(text) as unknown, (value) => {
    const clean: unknown = redact.call(adapter, value);
    if (typeof clean !== 'string') throw new TypeError('the adapter\'s redact returned something other than a string');
    return clean;
  });
}

/**
 * What the adapter declares as `redact`, read once under a guard: undefined when it declares
 * none, null when reading it throws (a getter or a proxy trap), which callers treat as a
 * `redact` that fails.
 */
export function declaredRedact(adapter: ModelAdapter): unknown {
  try {
    return adapter.redact;
  } catch {
    return null;
  }
}

/**
 * The adapter's `redact` as a cleaner of one text that cannot throw, for what the engine says
 * about the adapter's failures (a provider error quoting a key). A `redact` that is absent
 * leaves the text as it is; one that throws or answers no string hides the whole text, since
 * a secret the adapter declared may be in it.
 */
export function redactText(adapter: ModelAdapter): (text: string) => string {
  const redact = declaredRedact(adapter);
  if (redact === undefined) return (text) => text;
  return (text) => {
    try {
      if (typeof redact !== 'function') return REDACT_FAILED;
      const clean: unknown = redact.call(adapter, text);
      return typeof clean === 'string' ? clean : REDACT_FAILED;
    } catch {
      return REDACT_FAILED;
    }
  };
}

const REDACT_FAILED = "[hidden: the adapter's redact failed]";
