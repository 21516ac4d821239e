/**
 * `@rulvar/core/ai-sdk`: `aiSdk()`, a ModelAdapter over any AI SDK language model object, so
 * every provider package of the AI SDK (OpenAI's Responses API, Google, Bedrock, Vertex,
 * Mistral, Groq, Ollama, ...) drives the engine, streaming included. It calls the model's
 * `doGenerate` and `doStream` itself: nothing of `ai` or `@ai-sdk/provider` is loaded, and the
 * provider package does the HTTP. Use it as
 * `createEngine({ adapters: [aiSdk(openai.chat('gpt-4.1'))], defaults: { model: 'ai-sdk:gpt-4.1' } })`.
 *
 * @module @rulvar/core/ai-sdk
 */
import { ConfigError, RulvarError } from '../core/errors.js';
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../core/model/types.js';
import { DeltaScrub } from '../core/model/scrub-deltas.js';
import { Redactor, redactFunction } from '../core/secrets/redactor.js';
import { WINDOW } from '../core/secrets/scan.js';
import { BoundedCall } from './bounded-call.js';
import { fromGenerateResult } from './answer.js';
import { checkModel, type AiSdkLanguageModel } from './model-shape.js';
import { toCallOptions } from './prompt.js';
import { readParts } from './read-stream.js';
import { StreamParts } from './stream-parts.js';

export type { AiSdkLanguageModel, SpecificationVersion } from './model-shape.js';
export { SPECIFICATION_VERSIONS } from './model-shape.js';
export type { ProviderError } from '../adapters/errors.js';

/** How `aiSdk()` bounds and identifies one model. */
export interface AiSdkOptions {
  /** The adapter id models are routed by (`'<id>:<model>'`). Default `ai-sdk`. */
  id?: string;
  /**
   * Values never to repeat: the API key and any header value the provider was made with. They
   * are scrubbed, in every form the shared redactor finds, from errors, streamed deltas and
   * answers (the engine also scrubs each answer through the adapter's `redact`).
   */
  secrets?: readonly string[];
  /** Per call, from calling the model to the last part of its answer. Default 10 minutes. */
  timeoutMs?: number;
  /** The most characters of text and tool input one answer may hold; more is `model.protocol`. Default 32 Mi. */
  maxAnswerChars?: number;
  /** The most parts one stream may have, whatever they carry; more is `model.protocol`. Default 1,000,000. */
  maxStreamParts?: number;
}

const DEFAULT_TIMEOUT_MS = 600_000;
/** As the built-in adapters' 32 MiB body bound: ten times the largest real answers. */
const DEFAULT_MAX_ANSWER_CHARS = 32 * 1024 * 1024;
/** A 128k-token answer streams about as many parts; this is several times that. */
const DEFAULT_MAX_STREAM_PARTS = 1_000_000;

/** A ModelAdapter (with `stream`) over an AI SDK `LanguageModel` of specification v3 or v4. */
export function aiSdk(model: AiSdkLanguageModel, options: AiSdkOptions = {}): ModelAdapter {
  const { model: checked, name } = checkModel(model);
  const id = options.id ?? 'ai-sdk';
  if (typeof id !== 'string' || id === '' || id.includes(':')) throw new ConfigError('config.invalid_value', `aiSdk() id must be a non-empty string without ":", got ${JSON.stringify(String(id))}`);
  const timeoutMs = positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const bounds = { maxAnswerChars: positive(options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS, 'maxAnswerChars'), maxStreamParts: positive(options.maxStreamParts ?? DEFAULT_MAX_STREAM_PARTS, 'maxStreamParts') };
  const redactor = Redactor.of(secretsOf(options));
  const open = (signal: AbortSignal) => new BoundedCall(signal, timeoutMs, name, redactor);

  const adapter: ModelAdapter = {
    id,
    async generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      if (signal.aborted) throw signal.reason;
      const call = open(signal);
      try {
        const result = await call.invoke(() => checked.doGenerate(toCallOptions(request, call.signal)));
        return redactor.value(typed(call, signal, () => fromGenerateResult(result, call, bounds.maxAnswerChars)));
      } finally {
        call.close();
      }
    },
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelDelta> {
      if (signal.aborted) throw signal.reason;
      const call = open(signal);
      const parts = new StreamParts(call, bounds);
      // One scrubber for the whole stream: a key split across two deltas is caught whole.
      const scrub = redactor.active ? new DeltaScrub((text) => redactor.text(text), WINDOW) : undefined;
      try {
        const result = await call.invoke(() => checked.doStream(toCallOptions(request, call.signal)));
        for await (const part of readParts(result, call)) {
          for (const delta of typed(call, signal, () => parts.next(part))) yield* scrub === undefined ? [delta] : scrub.pass(delta);
          if (parts.finished) return;
        }
        throw call.incomplete('ended its stream without a finish part');
      } finally {
        call.close();
      }
    },
  };
  // Declared only when there is something to scrub: the engine copies every answer to pass it through.
  if (redactor.active) adapter.redact = redactFunction(redactor);
  return adapter;
}

/** What reading the host's objects threw, typed: a getter that throws, a value JSON cannot hold. */
function typed<T>(call: BoundedCall, signal: AbortSignal, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (RulvarError.is(error) || signal.aborted) throw error;
    throw call.protocol('answered something that could not be read');
  }
}

function secretsOf(options: AiSdkOptions): string[] {
  const secrets = options.secrets ?? [];
  if (!Array.isArray(secrets) || !secrets.every((secret) => typeof secret === 'string')) throw new ConfigError('config.invalid_value', 'aiSdk() secrets must be an array of strings');
  return [...secrets];
}

function positive(asked: number, name: string): number {
  if (!Number.isSafeInteger(asked) || asked <= 0) throw new ConfigError('config.invalid_value', `aiSdk() ${name} must be a positive integer, got ${String(asked)}`);
  return asked;
}
