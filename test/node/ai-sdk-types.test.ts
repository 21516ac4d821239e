/**
 * The structural types of @rulvar/core/ai-sdk against the AI SDK's real ones (type-only here,
 * as in the entry): what the adapter passes to `doGenerate`/`doStream` is valid call options
 * of both specification versions, and the models provider packages and ai/test make are
 * accepted by aiSdk() as they are. tsc checks this file; the test only makes it run.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AiSdkLanguageModel } from '../../src/ai-sdk/index.js';
import type { CallOptions } from '../../src/ai-sdk/prompt.js';

describe('@rulvar/core/ai-sdk types', () => {
  it('builds call options both specification versions accept', () => {
    expectTypeOf<CallOptions>().toExtend<LanguageModelV3CallOptions>();
    expectTypeOf<CallOptions>().toExtend<LanguageModelV4CallOptions>();
    expect(true).toBe(true);
  });

  it('takes any v3 or v4 language model, and no other specification', () => {
    expectTypeOf<LanguageModelV3>().toExtend<AiSdkLanguageModel>();
    expectTypeOf<LanguageModelV4>().toExtend<AiSdkLanguageModel>();
    expectTypeOf<{ specificationVersion: 'v2'; provider: string; modelId: string; doGenerate(): PromiseLike<unknown>; doStream(): PromiseLike<unknown> }>().not.toExtend<AiSdkLanguageModel>();
    expect(true).toBe(true);
  });
});
