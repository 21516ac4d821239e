/**
 * Unit tests of src/core/engine/model.ts, the checks the engine suites reach only through
 * whole runs with well-formed adapters: a response's stop reason when it names none (or one
 * not on the list), usage kept only when both counts are finite (a -0 written as 0), a tool
 * call's input nesting measured in arrays and objects both, what makes an error retryable,
 * and what of an adapter's error survives into model.failed (name, code, message: nothing else).
 */
import { describe, expect, it } from 'vitest';
import { checkResponse, isRetryable, MAX_INPUT_DEPTH, modelFailed, routeModel } from '../../src/core/engine/model.js';
import type { ModelAdapter } from '../../src/core/model/types.js';
import { RulvarError } from '../../src/node/index.js';

const call = { id: 'c1', name: 'lookup', input: { q: 1 } };
const nested = (depth: number, wrap: (inner: unknown) => unknown, innermost: unknown = 1): unknown => {
  let value: unknown = innermost;
  for (let i = 0; i < depth; i += 1) value = wrap(value);
  return value;
};
const thrown = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('checkResponse', () => {
  it('a stop reason off the list becomes tool_calls when there are calls and end when there are none', () => {
    expect(checkResponse({ text: '', toolCalls: [call] }).stopReason).toBe('tool_calls');
    expect(checkResponse({ text: '', toolCalls: [] }).stopReason).toBe('end');
    expect(checkResponse({ text: '', toolCalls: [], stopReason: 'weird' }).stopReason).toBe('end');
    for (const reason of ['end', 'tool_calls', 'max_tokens', 'refused']) expect(checkResponse({ text: '', toolCalls: [], stopReason: reason }).stopReason).toBe(reason);
  });

  it('usage is kept only with two finite counts, a -0 as 0', () => {
    const usage = (u: unknown) => checkResponse({ text: '', toolCalls: [], usage: u });
    expect(usage({ inputTokens: 3, outputTokens: -0 }).usage).toEqual({ inputTokens: 3, outputTokens: 0 });
    expect(Object.is(usage({ inputTokens: -0, outputTokens: -0 }).usage?.inputTokens, 0)).toBe(true);
    expect(Object.is(usage({ inputTokens: 1, outputTokens: -0 }).usage?.outputTokens, 0)).toBe(true);
    for (const bad of [undefined, { inputTokens: 1 }, { inputTokens: Number.NaN, outputTokens: 1 }, { inputTokens: 1, outputTokens: Number.POSITIVE_INFINITY }, { inputTokens: '1', outputTokens: 1 }]) {
      expect(Object.hasOwn(usage(bad), 'usage')).toBe(false);
    }
  });

  it('a call without a string id or name is refused, naming its index; one without input keeps no input key', () => {
    expect(thrown(() => checkResponse({ text: '', toolCalls: [call, null] }))).toBe('the adapter returned tool call 1 without a string id and name');
    expect(thrown(() => checkResponse({ text: '', toolCalls: [{ id: 1, name: 'n' }] }))).toBe('the adapter returned tool call 0 without a string id and name');
    expect(thrown(() => checkResponse({ text: '', toolCalls: ['c'] }))).toBe('the adapter returned tool call 0 without a string id and name');
    expect(Object.hasOwn(checkResponse({ text: '', toolCalls: [{ id: 'c', name: 'n' }] }).toolCalls[0] ?? {}, 'input')).toBe(false);
  });

  it(`an input may nest ${MAX_INPUT_DEPTH} levels of arrays or objects, not one more`, () => {
    for (const wrap of [(v: unknown) => [v], (v: unknown) => ({ k: v })]) {
      expect(thrown(() => checkResponse({ text: '', toolCalls: [{ ...call, input: nested(MAX_INPUT_DEPTH, wrap) }] }))).toBe('accepted');
      // A null at the deepest level is a value, not a level.
      expect(thrown(() => checkResponse({ text: '', toolCalls: [{ ...call, input: nested(MAX_INPUT_DEPTH, wrap, null) }] }))).toBe('accepted');
      expect(thrown(() => checkResponse({ text: '', toolCalls: [{ ...call, input: nested(MAX_INPUT_DEPTH + 1, wrap) }] }))).toBe(`the adapter returned tool call 0 whose input nests deeper than ${MAX_INPUT_DEPTH} levels`);
    }
    let level = 0;
    const mixed = nested(MAX_INPUT_DEPTH + 1, (v) => ((level += 1) % 2 === 0 ? [0, 'x', null, v] : { a: 1, k: v }));
    expect(thrown(() => checkResponse({ text: '', toolCalls: [{ ...call, input: mixed }] }))).toContain('nests deeper');
  });
});

describe('isRetryable', () => {
  it('only an object whose retryable is exactly true; a throwing getter marks nothing', () => {
    expect([{ retryable: true }, Object.assign(new Error('x'), { retryable: true })].map(isRetryable)).toEqual([true, true]);
    expect([{ retryable: 'yes' }, { retryable: 1 }, {}, null, undefined, 'retryable', true].map(isRetryable)).toEqual([false, false, false, false, false, false, false]);
    const hostile = Object.defineProperty({}, 'retryable', {
      get() {
        throw new Error('trap');
      },
    });
    expect(isRetryable(hostile)).toBe(false);
  });
});

describe('modelFailed', () => {
  it('keeps the cause\'s name, a string or number code and its message, nothing else', () => {
    class QuotaError extends Error {
      override name = 'QuotaError';
      readonly code = 'quota';
      readonly request = { headers: { authorization: 'Bearer s3cret' } };
    }
    const error = modelFailed('a', 'm', new QuotaError('over quota'));
    expect([error.code, error.message]).toEqual(['model.failed', 'model a:m failed: over quota']);
    const cause = error.cause as Error & { code?: unknown };
    expect([cause.name, cause.code, cause.message]).toEqual(['QuotaError', 'quota', 'over quota']);
    expect(Object.keys(cause).sort()).toEqual(['code', 'name']);
    expect((modelFailed('a', 'm', Object.assign(new Error('e'), { code: 429 })).cause as { code?: unknown }).code).toBe(429);
    expect(Object.hasOwn(modelFailed('a', 'm', Object.assign(new Error('e'), { code: { nested: 1 } })).cause as object, 'code')).toBe(false);
    expect((modelFailed('a', 'm', { code: 'plain', message: 'not an Error' }).cause as { code?: unknown; name: string }).code).toBe('plain');
    expect((modelFailed('a', 'm', Object.assign(new Error('e'), { name: 42 })).cause as Error).name).toBe('Error');
  });

  it('a cause whose members throw still gives model.failed; clean scrubs the message', () => {
    const hostile = new Proxy(new Error('boom'), {
      get(target, key) {
        if (key === 'code' || key === 'name') throw new Error('trap');
        return Reflect.get(target, key);
      },
    });
    expect(modelFailed('a', 'm', hostile)).toBeInstanceOf(RulvarError);
    expect(modelFailed('a', 'm', new Error('key sk-1'), (text) => text.replace('sk-1', '[gone]')).message).toBe('model a:m failed: key [gone]');
  });
});

describe('routeModel', () => {
  it('names the adapters there are, or none', () => {
    const adapters = new Map<string, ModelAdapter>();
    expect(thrown(() => routeModel('x:m', adapters))).toBe('no model adapter has id "x" (adapters: none)');
    expect(thrown(() => routeModel(':m', adapters))).toBe(`model ":m" is not of the form 'adapterId:model'`);
  });
});
