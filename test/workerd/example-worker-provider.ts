/**
 * A model provider on loopback for examples/worker's `MODEL` mapping: it answers the
 * Anthropic Messages route and the OpenAI Chat Completions route with one text turn naming
 * the model it was asked for, and records every request (headers and body) so a test can see
 * where the API key went. A prompt containing "fail" gets a 401 whose body quotes the key it
 * was sent, as some real gateways do; one containing "echo" gets a 200 whose text quotes it
 * (a debugging proxy, a model repeating what a gateway reflected). The Worker must pass on
 * neither.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';

export interface ProviderRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { readonly model?: string } & Record<string, unknown>;
}

export interface FakeProvider {
  /** The API root: MODEL_BASE_URL for anthropic (it appends /v1/messages) and openai. */
  readonly url: string;
  readonly requests: ProviderRequest[];
  close(): Promise<void>;
}

export async function startProvider(): Promise<FakeProvider> {
  const requests: ProviderRequest[] = [];
  const app = new Hono();
  const record = async (path: string, raw: Request): Promise<ProviderRequest> => {
    const request = { path, headers: Object.fromEntries(raw.headers), body: (await raw.json()) as ProviderRequest['body'] };
    requests.push(request);
    return request;
  };
  const refusal = (key: string | undefined) => Response.json({ error: { type: 'authentication_error', message: `invalid key ${key ?? ''}` } }, { status: 401 });
  app.post('/v1/messages', async (c) => {
    const { headers, body } = await record('/v1/messages', c.req.raw);
    if (JSON.stringify(body.messages).includes('fail')) return refusal(headers['x-api-key']);
    const text = JSON.stringify(body.messages).includes('echo') ? `you sent ${headers['x-api-key'] ?? ''}` : `hello from ${body.model ?? '?'}`;
    return Response.json({ content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 4 } });
  });
  app.post('/chat/completions', async (c) => {
    const { headers, body } = await record('/chat/completions', c.req.raw);
    if (JSON.stringify(body.messages).includes('fail')) return refusal(headers['authorization']);
    return Response.json({ choices: [{ message: { role: 'assistant', content: `hello from ${body.model ?? '?'}` }, finish_reason: 'stop' }] });
  });
  const http = await new Promise<ServerType>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server));
  });
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
