/**
 * `@rulvar/core/anthropic`: `anthropic()`, a ModelAdapter (id `anthropic`) for the Anthropic
 * Messages API over plain fetch, so it runs unchanged on Node, Workers and in browsers.
 * Use it as `createEngine({ adapters: [anthropic()] })` with models such as
 * `'anthropic:claude-sonnet-4-5'`.
 *
 * @module @rulvar/core/anthropic
 */
import { ConfigError } from '../core/errors.js';
import type { ModelAdapter, ModelDelta, ModelRequest, ModelResponse } from '../core/model/types.js';
import { redactFunction } from '../core/secrets/redactor.js';
import { extraHeaders, findApiKey, transportOf, type ProviderOptions } from '../adapters/options.js';
import { postJson } from '../adapters/post-json.js';
import { postStream } from '../adapters/post-stream.js';
import { toAnthropicBody } from './request.js';
import { fromAnthropicBody } from './response.js';
import { anthropicDeltas } from './stream.js';

export type { ProviderError } from '../adapters/errors.js';
export type { FetchLike } from '../adapters/options.js';

export interface AnthropicOptions extends ProviderOptions {
  /** Default `https://api.anthropic.com`; the adapter appends `/v1/messages`. */
  baseURL?: string;
  /** The API requires a cap on output tokens per turn. Default 4096. */
  maxTokens?: number;
}

export const ANTHROPIC_VERSION = '2023-06-01';
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

export function anthropic(options: AnthropicOptions = {}): ModelAdapter {
  const apiKey = findApiKey(options.apiKey, 'ANTHROPIC_API_KEY');
  if (apiKey === undefined) {
    throw new ConfigError('config.missing_key', 'anthropic() needs an API key: pass apiKey, or set ANTHROPIC_API_KEY on Node');
  }
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new ConfigError('config.invalid_value', `anthropic() maxTokens must be a positive integer, got ${String(maxTokens)}`);
  }
  const url = `${(options.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
  const transport = transportOf(options, apiKey);
  // Spread first so a caller's header can add to, never replace, the authentication.
  const headers = { ...extraHeaders(options), 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION };

  const adapter: ModelAdapter = {
    id: 'anthropic',
    async generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      const encode = () => toAnthropicBody(request, maxTokens);
      const answer = await postJson({ provider: 'anthropic', url, headers, encode, transport }, signal);
      return fromAnthropicBody(answer, transport.redactor);
    },
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelDelta> {
      const encode = () => ({ ...toAnthropicBody(request, maxTokens), stream: true });
      return anthropicDeltas(postStream({ provider: 'anthropic', url, headers, encode, transport }, signal), transport.redactor);
    },
  };
  // Declared so the engine scrubs what else it keeps with the same secrets: a native tool's
  // result quoting the key. The adapter's own answers are scrubbed already; this is the same pass.
  if (transport.redactor.active) adapter.redact = redactFunction(transport.redactor);
  return adapter;
}
