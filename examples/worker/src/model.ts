/**
 * The model a run uses, as config.ts read it from `MODEL` (`'adapterId:model'`):
 *   unset, or `scripted:…`   the scripted demo (demo-model.ts): no API key, no provider
 *   `anthropic:<model>`      @rulvar/core/anthropic, keyed by the ANTHROPIC_API_KEY secret
 *   `openai:<model>`         @rulvar/core/openai, keyed by the OPENAI_API_KEY secret
 * `MODEL_BASE_URL` points either provider elsewhere (Cloudflare AI Gateway, a proxy). Keys
 * are secrets, not vars: they reach only the provider's auth header, and the adapters scrub
 * them from every error, so no response or journal entry can quote one.
 */
import type { ModelAdapter } from '@rulvar/core';
import { anthropic } from '@rulvar/core/anthropic';
import { openaiCompatible } from '@rulvar/core/openai';
import type { ModelConfig } from './config.js';
import { demoModel } from './demo-model.js';

export interface ModelChoice {
  readonly adapters: ModelAdapter[];
  /** What the engine's `defaults.model` gets. */
  readonly model: string;
}

const OPENAI_API = 'https://api.openai.com/v1';

export function chooseModel(config: ModelConfig): ModelChoice {
  return { adapters: [adapterFor(config)], model: config.name };
}

function adapterFor(config: ModelConfig): ModelAdapter {
  switch (config.adapter) {
    case 'scripted':
      return demoModel();
    case 'anthropic':
      return anthropic({ apiKey: config.apiKey, ...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }) });
    case 'openai':
      return openaiCompatible({ apiKey: config.apiKey, baseURL: config.baseURL ?? OPENAI_API });
  }
}
