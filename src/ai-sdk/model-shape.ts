/**
 * What this entry needs of an AI SDK `LanguageModel`, described structurally rather than
 * imported: the public types then never name `@ai-sdk/provider`, so a host on either major
 * of it (3.x declares v3, 4.x v3 and v4) compiles against them, and nothing of the AI SDK is
 * loaded at run time. The options the adapter passes are checked against both versions' real
 * call options in test/node/ai-sdk-types.test.ts.
 */
import { ConfigError } from '../core/errors.js';
import type { CallOptions } from './prompt.js';

/** The specification versions this adapter speaks: AI SDK 6's providers (v3) and AI SDK 7's (v4). */
export const SPECIFICATION_VERSIONS = Object.freeze(['v3', 'v4'] as const);

/** A specification version this adapter speaks: `'v3'` or `'v4'`. */
export type SpecificationVersion = (typeof SPECIFICATION_VERSIONS)[number];

/**
 * An AI SDK language model of a supported specification version, as provider packages make
 * them. The methods' options are the call options of the model's own version, which this
 * adapter builds (the subset v3 and v4 share); what they answer is checked, not trusted.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: SpecificationVersion;
  readonly provider: string;
  readonly modelId: string;
  /** One answer whole: a result of `content`, `finishReason` and `usage`. */
  doGenerate(options: never): PromiseLike<unknown>;
  /** One answer in parts: a result whose `stream` is a ReadableStream of stream parts. */
  doStream(options: never): PromiseLike<unknown>;
}

/** The model as this adapter calls it. */
export interface CallableModel {
  doGenerate(options: CallOptions): PromiseLike<unknown>;
  doStream(options: CallOptions): PromiseLike<unknown>;
}

/** The model's facts, read once and checked: a getter that throws fails here, typed, not mid-run. */
export interface CheckedModel {
  readonly model: CallableModel;
  readonly version: SpecificationVersion;
  /** `provider/modelId`, for messages. */
  readonly name: string;
}

export function checkModel(model: unknown): CheckedModel {
  let version: unknown;
  let provider: unknown;
  let modelId: unknown;
  let methods: boolean;
  try {
    if (typeof model !== 'object' || model === null) throw new TypeError('not an object');
    const candidate = model as Partial<Record<keyof AiSdkLanguageModel, unknown>>;
    version = candidate.specificationVersion;
    provider = candidate.provider;
    modelId = candidate.modelId;
    methods = typeof candidate.doGenerate === 'function' && typeof candidate.doStream === 'function';
  } catch {
    throw new ConfigError('config.invalid_value', 'aiSdk() needs an AI SDK language model object, such as openai.chat("gpt-4.1") from @ai-sdk/openai');
  }
  if (!SPECIFICATION_VERSIONS.includes(version as SpecificationVersion)) {
    throw new ConfigError('config.invalid_value', `aiSdk() supports language models of specification ${SPECIFICATION_VERSIONS.join(' and ')} (AI SDK 6 and 7 provider packages); this model declares ${describeVersion(version)}${hint(version)}`);
  }
  if (!methods) throw new ConfigError('config.invalid_value', 'aiSdk() needs a language model with doGenerate and doStream methods');
  const name = `${typeof provider === 'string' ? provider : 'an AI SDK provider'}/${typeof modelId === 'string' ? modelId : 'a model'}`;
  return { model: model as CallableModel, version: version as SpecificationVersion, name };
}

function describeVersion(version: unknown): string {
  return typeof version === 'string' ? JSON.stringify(version.slice(0, 20)) : 'no specificationVersion';
}

function hint(version: unknown): string {
  if (version === 'v2' || version === 'v1') return ' (a provider package of AI SDK 5 or older: upgrade it to the AI SDK 6 or 7 line)';
  return '';
}
