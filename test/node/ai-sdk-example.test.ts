/**
 * examples/ai-sdk.ts as a user runs it (node + tsx, importing the built package and the real
 * @ai-sdk/openai), pointed by OPENAI_BASE_URL at a loopback fake of the Chat Completions wire:
 * the agent adds a note and lists the notes through the AI SDK model, then answers. Without
 * a key it says how to run it and exits 0, never touching the network.
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { chatCompletion, createOpenAIServer } from '../fixtures/provider-openai.js';
import { chatStream } from '../fixtures/provider-openai-stream.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The example imports dist/ through the package's own exports: `npm test` builds it first.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const run = (env: Record<string, string | undefined>) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/ai-sdk.ts'], { cwd: root, env: { ...process.env, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ...env }, timeout: 60_000 });

let http: ServerType | undefined;
afterAll(async () => {
  if (http === undefined) return;
  if ('closeAllConnections' in http) http.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

describe.runIf(enabled)('examples/ai-sdk.ts', () => {
  it('without a key prints "skipped: set OPENAI_API_KEY" and exits 0', async () => {
    const { stdout } = await run({});
    expect(stdout.trim()).toBe('skipped: set OPENAI_API_KEY to run this example against the OpenAI API through the AI SDK');
  }, 70_000);

  it('runs its agent through @ai-sdk/openai against a fake of the wire: two tool calls, then the answer', async () => {
    const turns: Parameters<typeof chatCompletion>[0][] = [
      { toolCalls: [{ id: 'call_a', name: 'notes_add_note', arguments: '{"title":"groceries","body":"eggs, rice"}' }] },
      { toolCalls: [{ id: 'call_b', name: 'notes_list_notes', arguments: '{}' }] },
      { text: 'Saved: groceries (eggs, rice).' },
    ];
    // The engine streams when the adapter can (aiSdk can): each turn answered as its request asks.
    const server = createOpenAIServer((body, n) => {
      const turn = turns[n] ?? { text: 'no more turns scripted' };
      return (body as { stream?: unknown }).stream === true ? chatStream(turn) : chatCompletion(turn);
    });
    http = await new Promise<ServerType>((resolve) => {
      const listening: ServerType = serve({ hostname: '127.0.0.1', port: 0, fetch: server.app.fetch }, () => resolve(listening));
    });
    const baseURL = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1`;
    const { stdout } = await run({ OPENAI_API_KEY: 'sk-example-fake-0123456789', OPENAI_BASE_URL: baseURL, OPENAI_MODEL: 'gpt-test' });
    expect(stdout.trim().split('\n')).toEqual([
      'tool notes_add_note {"title":"groceries","body":"eggs, rice"} -> {"title":"groceries","count":1}',
      'tool notes_list_notes {} -> "groceries\\n"',
      'answer (3 turns): Saved: groceries (eggs, rice).',
    ]);
    expect(server.requests.map((request) => (request.body as { model?: unknown }).model)).toEqual(['gpt-test', 'gpt-test', 'gpt-test']);
  }, 70_000);
});
