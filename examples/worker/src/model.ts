/**
 * The model a run uses, chosen by the `MODEL` var (`'adapterId:model'`):
 *   unset, or `scripted:…`   the scripted demo (demo-model.ts): no API key, no provider
 *   `anthropic:<model>`      @rulvar/core/anthropic, keyed by the ANTHROPIC_API_KEY secret
 *   `openai:<model>`         @rulvar/core/openai, keyed by the OPENAI_API_KEY secret
 * `MODEL_BASE_URL` points either provider elsewhere (Cloudflare AI Gateway, a proxy). Keys
 * are secrets, not vars: they reach only the provider's auth header, and the adapters scrub
 * them from every error, so no response or journal entry can quote one. Anything else is
 * refused before a run starts.
 */
import { ConfigError, type ModelAdapter } from '@rulvar/core';
import { anthropic } from '@rulvar/core/anthropic';
import { openaiCompatible } from '@rulvar/core/openai';
import { demoModel } from './demo-model.js';
import type { Env } from './env.js';

export interface ModelChoice {
  readonly adapters: ModelAdapter[];
  /** What the engine's `defaults.model` gets. */
  readonly model: string;
}

const OPENAI_API = 'https://api.openai.com/v1';

export function chooseModel(env: Env): ModelChoice {
  const name = env.MODEL === undefined || env.MODEL.trim() === '' ? 'scripted:demo' : env.MODEL.trim();
  const colon = name.indexOf(':');
  if (colon <= 0 || colon === name.length - 1) {
    throw new ConfigError('config.invalid_value', `MODEL must look like 'adapterId:model', got ${JSON.stringify(name)}`);
  }
  return { adapters: [adapterFor(name.slice(0, colon), env)], model: name };
}

function adapterFor(adapterId: string, env: Env): ModelAdapter {
  const baseURL = env.MODEL_BASE_URL?.trim() || undefined;
  switch (adapterId) {
    case 'scripted':
      return demoModel();
    case 'anthropic':
      return anthropic({ apiKey: secret(env.ANTHROPIC_API_KEY, 'ANTHROPIC_API_KEY', adapterId), ...(baseURL === undefined ? {} : { baseURL }) });
    case 'openai':
      return openaiCompatible({ apiKey: secret(env.OPENAI_API_KEY, 'OPENAI_API_KEY', adapterId), baseURL: baseURL ?? OPENAI_API });
    default:
      throw new ConfigError(
        'model.unknown_adapter',
        `MODEL names adapter ${JSON.stringify(adapterId)}; this Worker has 'anthropic', 'openai' and 'scripted' (unset MODEL runs the scripted demo)`,
      );
  }
}

/**
 * The provider key, required: without it the adapter would look for a Node environment
 * variable, which a Worker has none of, and fail with a message about Node.
 */
function secret(value: string | undefined, binding: string, adapterId: string): string {
  if (value === undefined || value === '') {
    throw new ConfigError('config.missing_key', `MODEL uses ${JSON.stringify(adapterId)}, which needs the ${binding} secret: npx wrangler secret put ${binding}`);
  }
  return value;
}
