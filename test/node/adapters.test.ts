/**
 * The provider adapters on Node, where the shared suite cannot go: over a real loopback
 * socket with the default global fetch (no `fetch` option), keys read from the environment,
 * and network failures (nothing listening) retried and flagged retryable.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { anthropic } from '../../src/anthropic/index.js';
import type { ProviderError } from '../../src/adapters/errors.js';
import { ConfigError, type ModelRequest } from '../../src/core/index.js';
import { openaiCompatible } from '../../src/openai/index.js';
import { caught } from '../core/helpers.js';
import { PROVIDER_FLAVOURS } from '../fixtures/provider-flavours.js';
import type { ProviderServer } from '../fixtures/provider-server.js';

const REQUEST: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };
const KEY = 'sk-loopback-0123456789';
const live = () => new AbortController().signal;

/** Serves `server`'s app on 127.0.0.1; returns its origin. */
async function listen(server: ProviderServer): Promise<{ origin: string; close(): Promise<void> }> {
  const http = await new Promise<ServerType>((resolve) => {
    const listening: ServerType = serve({ hostname: '127.0.0.1', port: 0, fetch: server.app.fetch }, () => resolve(listening));
  });
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      if ('closeAllConnections' in http) http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

for (const flavour of PROVIDER_FLAVOURS) {
  describe(`${flavour.name} over loopback TCP with the global fetch`, () => {
    const start = async (options: { maxRetries?: number; timeoutMs?: number } = {}) => {
      const server = flavour.server();
      const { origin, close } = await listen(server);
      closers.push(close);
      return { server, model: flavour.adapter({ apiKey: KEY, origin, ...options }) };
    };

    it('a request and its answer cross a real socket', async () => {
      const { server, model } = await start();
      server.queue(flavour.text('over tcp'));
      expect((await model.generate(REQUEST, live())).text).toBe('over tcp');
      expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    });

    it('a 500 then a success is retried across the socket', async () => {
      const { server, model } = await start();
      server.queue(flavour.error(500, 'boom', { 'retry-after': '0' }), flavour.text('ok'));
      expect((await model.generate(REQUEST, live())).text).toBe('ok');
      expect(server.requests.length).toBe(2);
    });

    it('an abort mid-request ends the exchange at once', async () => {
      const { server, model } = await start();
      server.queue({ hang: true });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stop')), 50);
      const started = Date.now();
      expect(((await caught(() => model.generate(REQUEST, controller.signal))) as Error).message).toBe('stop');
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('timeoutMs ends a hanging exchange', async () => {
      const { server, model } = await start({ timeoutMs: 150 });
      server.queue({ hang: true });
      const error = (await caught(() => model.generate(REQUEST, live()))) as ProviderError;
      expect(error.code).toBe('model.failed');
      expect(error.message).toMatch(/did not answer within 150 ms/);
    });

    it('nothing listening: retried, then a retryable model.failed without the key', async () => {
      const { origin, close } = await listen(flavour.server());
      await close();
      const model = flavour.adapter({ apiKey: KEY, origin, maxRetries: 1 });
      const error = (await caught(() => model.generate(REQUEST, live()))) as ProviderError;
      expect(error.code).toBe('model.failed');
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(/could not be reached/);
      expect(`${error.message} ${String(error)} ${JSON.stringify(error)}`).not.toContain(KEY);
    });
  });
}

describe('API keys from the environment', () => {
  const saved = { anthropic: process.env['ANTHROPIC_API_KEY'], openai: process.env['OPENAI_API_KEY'] };
  const restore = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  afterEach(() => {
    restore('ANTHROPIC_API_KEY', saved.anthropic);
    restore('OPENAI_API_KEY', saved.openai);
  });

  it('anthropic() reads ANTHROPIC_API_KEY; the option wins over it', async () => {
    process.env['ANTHROPIC_API_KEY'] = 'sk-ant-from-env';
    const server = PROVIDER_FLAVOURS[0]!.server();
    await anthropic({ baseURL: 'https://anthropic.test', fetch: server.fetch }).generate(REQUEST, live());
    await anthropic({ apiKey: 'sk-ant-given', baseURL: 'https://anthropic.test', fetch: server.fetch }).generate(REQUEST, live());
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual(['sk-ant-from-env', 'sk-ant-given']);
  });

  it('anthropic() with no key anywhere is config.missing_key, made not called', () => {
    delete process.env['ANTHROPIC_API_KEY'];
    let error: unknown;
    try {
      anthropic();
    } catch (thrown) {
      error = thrown;
    }
    expect(ConfigError.is(error)).toBe(true);
    expect((error as ConfigError).code).toBe('config.missing_key');
    expect((error as Error).message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('openaiCompatible() reads OPENAI_API_KEY for OpenAI\'s API only, never for another baseURL, and sends no Authorization without any key', async () => {
    const server = PROVIDER_FLAVOURS[1]!.server();
    process.env['OPENAI_API_KEY'] = 'sk-openai-from-env';
    try {
      // OpenAI's host, spelled as a URL may spell it: the key goes.
      for (const baseURL of ['https://api.openai.com/v1', 'https://API.OpenAI.com/v1', 'https://api.openai.com:443/v1', 'https://api.openai.com/v1/']) {
        await openaiCompatible({ baseURL, fetch: server.fetch }).generate(REQUEST, live());
      }
      // A gateway, a self-hosted server, OpenAI's host over plain http, and every host that
      // only looks like OpenAI's (a suffix, a subdomain, a longer name): the key stays home.
      const elsewhere = [
        'https://gateway.example/v1',
        'http://localhost:11434/v1',
        'http://api.openai.com/v1',
        'https://api.openai.com.example/v1',
        'https://api.openai.com.evil.test/v1',
        'https://notopenai.com/v1',
        'https://evil.openai.com/v1',
        'https://openai.com/v1',
        'https://api-openai.com/v1',
        'https://api.openai.co/v1',
      ];
      for (const baseURL of elsewhere) await openaiCompatible({ baseURL, fetch: server.fetch }).generate(REQUEST, live());
      await openaiCompatible({ baseURL: 'https://gateway.example/v1', apiKey: 'gw-key-given', fetch: server.fetch }).generate(REQUEST, live());
      delete process.env['OPENAI_API_KEY'];
      await openaiCompatible({ baseURL: 'https://api.openai.com/v1', fetch: server.fetch }).generate(REQUEST, live());
      expect(server.requests.map((r) => r.headers['authorization'])).toEqual([
        ...Array.from({ length: 4 }, () => 'Bearer sk-openai-from-env'),
        ...elsewhere.map(() => undefined),
        'Bearer gw-key-given',
        undefined,
      ]);
    } finally {
      delete process.env['OPENAI_API_KEY'];
    }
  });
});
