/**
 * `@rulvar/core/openai`: `openaiCompatible()`, a ModelAdapter for the OpenAI Chat Completions
 * API and the many servers that speak it (OpenAI, Azure-style gateways, vLLM, Ollama, ...),
 * over plain fetch so it runs unchanged on Node, Workers and in browsers. Use it as
 * `createEngine({ adapters: [openaiCompatible({ baseURL: 'https://api.openai.com/v1' })] })`
 * with models such as `'openai:gpt-4.1'`.
 *
 * @module @rulvar/core/openai
 */
import { ConfigError } from '../core/errors.js';
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../core/model/types.js';
import { redactFunction } from '../core/secrets/redactor.js';
import { extraHeaders, findApiKey, transportOf, type ProviderOptions } from '../adapters/options.js';
import { postJson } from '../adapters/post-json.js';
import { postStream } from '../adapters/post-stream.js';
import { toChatBody } from './request.js';
import { fromChatBody } from './response.js';
import { chatDeltas } from './stream.js';

export type { ProviderError } from '../adapters/errors.js';
export type { FetchLike } from '../adapters/options.js';

export interface OpenAICompatibleOptions extends ProviderOptions {
  /** The API root, such as `https://api.openai.com/v1`; the adapter appends `/chat/completions`. */
  baseURL: string;
  /** The adapter id models are routed by (`'<id>:<model>'`). Default `openai`. */
  id?: string;
}

export function openaiCompatible(options: OpenAICompatibleOptions): ModelAdapter {
  if (typeof options?.baseURL !== 'string' || options.baseURL === '') {
    throw new ConfigError('config.invalid_value', 'openaiCompatible() needs a baseURL, such as https://api.openai.com/v1');
  }
  const id = options.id ?? 'openai';
  // OPENAI_API_KEY is OpenAI's credential: it is read from the environment only for OpenAI's
  // own API, never sent to a gateway or a self-hosted server the caller pointed baseURL at.
  // Local servers (Ollama, vLLM) often need no key: without one, no Authorization header is sent.
  const apiKey = options.apiKey ?? (isOpenAiApi(options.baseURL) ? findApiKey(undefined, 'OPENAI_API_KEY') : undefined);
  const url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const transport = transportOf(options, apiKey);
  const headers = {
    ...extraHeaders(options),
    'content-type': 'application/json',
    ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
  };

  const adapter: ModelAdapter = {
    id,
    async generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      const answer = await postJson({ provider: id, url, headers, encode: () => toChatBody(request), transport }, signal);
      return fromChatBody(answer, id, transport.redactor);
    },
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelDelta> {
      const encode = () => ({ ...toChatBody(request), stream: true, stream_options: { include_usage: true } });
      return chatDeltas(postStream({ provider: id, url, headers, encode, transport }, signal), id, transport.redactor);
    },
  };
  // Declared so the engine scrubs what else it keeps with the same secrets: a native tool's
  // result quoting the key. The adapter's own answers are scrubbed already; this is the same pass.
  if (transport.redactor.active) adapter.redact = redactFunction(transport.redactor);
  return adapter;
}

const OPENAI_API_HOST = 'api.openai.com';

function isOpenAiApi(baseURL: string): boolean {
  try {
    const url = new URL(baseURL);
    return url.protocol === 'https:' && url.hostname === OPENAI_API_HOST;
  } catch {
    return false;
  }
}
