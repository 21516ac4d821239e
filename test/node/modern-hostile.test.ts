/**
 * What a hostile 2026-07-28 server can do that a 2025 one cannot, against a hand-written
 * endpoint (a Request → Response function behind `http.fetch`, so every answer is exactly what
 * the test wrote): a subscription never acknowledged or dropped, input_required without end or
 * asking for what this client does not give, HTTP 400s carrying JSON-RPC errors, x-mcp-header
 * annotations that break the rules, schemas outside the validator's subset, and cancellation.
 */
import { describe, expect, it } from 'vitest';
import { dispatchTool, mcp, resolveToolset, type McpConfig } from '../../src/node/index.js';
import { withApplicationType } from '../../src/core/mcp/modern/oauth-rules.js';
import { freshFor, MAX_TTL_MS } from '../../src/core/mcp/modern/answers.js';
import { MAX_INPUT_ROUNDS } from '../../src/core/mcp/modern/calls.js';
import { headerValue } from '../../src/core/mcp/modern/param-headers.js';
import { sleep } from '../core/helpers.js';

type Answer = (params: Record<string, unknown>, request: Request) => Response | Promise<Response>;
interface Seen {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly headers: Headers;
  readonly signal: AbortSignal;
}

const TOOL = { name: 'echo', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } };
const result = (id: unknown, value: unknown) => Response.json({ jsonrpc: '2.0', id, result: value });

/** A modern endpoint: discover (with listChanged when `listen` is given), a list, and what `answers` say. */
function endpoint(answers: Partial<Record<string, Answer>> = {}, tools: unknown[] = [TOOL], listen?: Answer) {
  const seen: Seen[] = [];
  const handle = async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return new Response(null, { status: 405 });
    const body = (await request.json()) as { id: unknown; method: string; params: Record<string, unknown> };
    seen.push({ method: body.method, params: body.params, headers: request.headers, signal: request.signal });
    const answer = answers[body.method] ?? (body.method === 'subscriptions/listen' ? listen : undefined);
    if (answer !== undefined) return answer({ ...body.params, id: body.id }, request);
    if (body.method === 'server/discover') return result(body.id, { supportedVersions: ['2026-07-28'], capabilities: { tools: listen === undefined ? {} : { listChanged: true } } });
    if (body.method === 'tools/list') return result(body.id, { tools, ttlMs: 60_000 });
    return result(body.id, { content: [{ type: 'text', text: 'done' }] });
  };
  const config = (extra: Partial<McpConfig> = {}): McpConfig => ({ transport: 'streamable-http', url: 'https://modern.test/mcp', protocol: '2026-07-28', http: { fetch: (input, init) => handle(new Request(input, init)) }, ...extra } as McpConfig);
  return { seen, config, methods: () => seen.map((s) => s.method) };
}

const call = async (config: McpConfig, name: string, input: unknown) => {
  const source = mcp(config);
  try {
    const outcome = await dispatchTool(await resolveToolset([source]), { id: '1', name, input });
    if (outcome.status !== 'done') throw new Error(outcome.status);
    return outcome.result;
  } finally {
    await source.close();
  }
};

describe('subscriptions/listen from a hostile server', () => {
  it('a subscription never acknowledged costs listMs once: the list is trusted for its ttlMs, and it is not asked again', async () => {
    const hung: Answer = (_params, request) => new Response(new ReadableStream({ cancel: () => undefined }), { headers: { 'content-type': 'text/event-stream' }, status: 200, statusText: request.method });
    const server = endpoint({}, [TOOL], hung);
    const source = mcp(server.config({ timeouts: { listMs: 600 } }));
    try {
      const started = Date.now();
      await source.tools();
      const took = Date.now() - started;
      // The bound, not half of it, and not twice it (everything else here is in process).
      expect(took).toBeGreaterThanOrEqual(590);
      expect(took).toBeLessThan(1_190);
      const again = Date.now();
      await source.tools();
      expect(Date.now() - again).toBeLessThan(200);
      expect(server.methods().filter((m) => m === 'subscriptions/listen')).toHaveLength(1);
      // The stream the server never answered on was closed when it was given up on.
      expect(server.seen.find((s) => s.method === 'subscriptions/listen')?.signal.aborted).toBe(true);
    } finally {
      await source.close();
    }
  });

  it('a subscription that ends drops the cached list: the next tools() lists again and opens a new one', async () => {
    let opened = 0;
    const endsAfterAck: Answer = (params) => {
      opened += 1;
      const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': params['id'] } } };
      // The first stream ends right after its acknowledgement, without a response.
      const body = opened === 1 ? `event: message\ndata: ${JSON.stringify(ack)}\n\n` : new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(ack)}\n\n`)) });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const server = endpoint({}, [TOOL], endsAfterAck);
    const source = mcp(server.config());
    try {
      await source.tools();
      await sleep(50);
      await source.tools();
      expect(server.methods()).toEqual(['server/discover', 'subscriptions/listen', 'tools/list', 'subscriptions/listen', 'tools/list']);
      await source.tools();
      expect(server.methods()).toHaveLength(5);
    } finally {
      await source.close();
    }
  });

  it('one event past 10 MB on the subscription stream is cut there, not buffered, and ends the connection', async () => {
    const streamed: number[] = [];
    const flood: Answer = (params) => {
      const stream = streamed.push(0) - 1;
      const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': params['id'] } } };
      const encoder = new TextEncoder();
      const chunk = encoder.encode('x'.repeat(65_536));
      let started = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!started) {
            started = true;
            controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(ack)}\n\nevent: message\ndata: `));
            return;
          }
          streamed[stream] = (streamed[stream] ?? 0) + chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const server = endpoint({}, [TOOL], flood);
    const source = mcp(server.config());
    try {
      await source.tools();
      for (let i = 0; i < 200 && server.methods().filter((m) => m === 'server/discover').length < 2; i += 1) {
        await sleep(25);
        await source.tools().catch(() => undefined);
      }
      // The connection was given up and opened again; the flood stopped near the cap.
      expect(server.methods().filter((m) => m === 'server/discover').length).toBeGreaterThanOrEqual(2);
      expect(streamed[0]).toBeGreaterThan(10 * 1024 * 1024);
      expect(streamed[0]).toBeLessThan(10 * 1024 * 1024 + 6 * 1024 * 1024);
    } finally {
      await source.close();
    }
  });

  it('a list_changed without this subscription’s id is ignored', async () => {
    const foreign: Answer = (params) => {
      const meta = (id: unknown) => ({ 'io.modelcontextprotocol/subscriptionId': id });
      const events = [
        { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: meta(params['id']) } },
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta('someone-else') } },
        { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      ];
      const text = events.map((event) => `event: message\ndata: ${JSON.stringify(event)}\n\n`).join('');
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(text)) }), { headers: { 'content-type': 'text/event-stream' } });
    };
    const server = endpoint({}, [TOOL], foreign);
    const source = mcp(server.config({ drift: 'refuse' }));
    try {
      await source.tools();
      await sleep(100);
      await source.tools();
      expect(server.methods().filter((m) => m === 'tools/list')).toHaveLength(1);
    } finally {
      await source.close();
    }
  });
});

describe('input_required from a hostile server', () => {
  it(`a server that keeps asking is a server_error after ${MAX_INPUT_ROUNDS} rounds, each echoing its requestState`, async () => {
    let round = 0;
    const server = endpoint({ 'tools/call': (params) => result(params['id'], { resultType: 'input_required', requestState: `s${(round += 1)}` }) });
    const outcome = await call(server.config(), 'echo', {});
    expect(outcome).toMatchObject({ isError: true, reason: 'server_error' });
    expect(outcome.output).toContain(`still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    const calls = server.seen.filter((s) => s.method === 'tools/call');
    expect(calls).toHaveLength(MAX_INPUT_ROUNDS);
    expect(calls.map((c) => c.params['requestState'])).toEqual([undefined, ...Array.from({ length: MAX_INPUT_ROUNDS - 1 }, (_, i) => `s${i + 1}`)]);
  });

  it('asking for sampling ends the call as a server_error naming it, with no retry', async () => {
    const server = endpoint({ 'tools/call': (params) => result(params['id'], { resultType: 'input_required', inputRequests: { q: { method: 'sampling/createMessage', params: {} } } }) });
    const outcome = await call(server.config(), 'echo', {});
    expect(outcome).toMatchObject({ isError: true, reason: 'server_error' });
    expect(outcome.output).toContain('"sampling/createMessage"');
    expect(server.methods().filter((m) => m === 'tools/call')).toHaveLength(1);
  });

  it('an elicitation is answered "cancel" and the call sent again with the answers', async () => {
    let first = true;
    const server = endpoint({
      'tools/call': (params) => {
        if (!first) return result(params['id'], { content: [{ type: 'text', text: JSON.stringify(params['inputResponses']) }] });
        first = false;
        return result(params['id'], { resultType: 'input_required', inputRequests: { who: { method: 'elicitation/create', params: { message: 'who?' } } } });
      },
    });
    expect(await call(server.config(), 'echo', {})).toMatchObject({ isError: false, output: '{"who":{"action":"cancel"}}' });
  });

  it('a resultType this client does not know is never a success', async () => {
    const server = endpoint({ 'tools/call': (params) => result(params['id'], { resultType: 'task', content: [] }) });
    expect(await call(server.config(), 'echo', {})).toMatchObject({ isError: true, reason: 'server_error', output: expect.stringContaining('unknown resultType "task"') });
  });
});

describe('HTTP answers on the modern wire', () => {
  it('a 400 carrying a HeaderMismatch is that call’s server_error, the list is fetched again, and nothing reconnects', async () => {
    const server = endpoint({ 'tools/call': (params) => Response.json({ jsonrpc: '2.0', id: params['id'], error: { code: -32020, message: 'header mismatch' } }, { status: 400 }) });
    const source = mcp(server.config());
    try {
      const toolset = await resolveToolset([source]);
      const outcome = await dispatchTool(toolset, { id: '1', name: 'echo', input: {} });
      expect(outcome).toMatchObject({ status: 'done', result: { isError: true, reason: 'server_error', output: expect.stringContaining('JSON-RPC error -32020: header mismatch') } });
      await source.tools();
      expect(server.methods()).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/list']);
    } finally {
      await source.close();
    }
  });

  it('a discover result offering neither revision is refused under auto, naming what it offered, and initialize is never sent', async () => {
    const offersOld: Answer = (params) => result(params['id'], { supportedVersions: ['2024-11-05'], capabilities: {} });
    const server = endpoint({ 'server/discover': offersOld });
    const source = mcp(server.config({ protocol: 'auto' }));
    try {
      await expect(source.tools()).rejects.toMatchObject({
        code: 'source.protocol',
        message: expect.stringContaining('the server does not speak 2026-07-28 or 2025-11-25: it offered "2024-11-05"') as unknown,
      });
      expect(server.methods()).toEqual(['server/discover']);
    } finally {
      await source.close();
    }
  });

  it('a 400 without a JSON-RPC body is one refused call; the connection is kept', async () => {
    const server = endpoint({ 'tools/call': () => new Response('no', { status: 400 }) });
    const source = mcp(server.config());
    try {
      const toolset = await resolveToolset([source]);
      expect(await dispatchTool(toolset, { id: '1', name: 'echo', input: {} })).toMatchObject({ result: { isError: true, reason: 'unavailable' } });
      expect(server.methods().filter((m) => m === 'server/discover')).toHaveLength(1);
    } finally {
      await source.close();
    }
  });

  it('cancelling a call aborts its HTTP exchange and sends no notifications/cancelled', async () => {
    const server = endpoint({ 'tools/call': (_params, request) => new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(new Error('aborted')))) });
    const source = mcp(server.config());
    try {
      const toolset = await resolveToolset([source]);
      const controller = new AbortController();
      const pending = dispatchTool(toolset, { id: '1', name: 'echo', input: {} }, { signal: controller.signal });
      await sleep(50);
      controller.abort();
      expect(await pending).toMatchObject({ result: { isError: true, reason: 'unavailable' } });
      expect(server.seen.find((s) => s.method === 'tools/call')?.signal.aborted).toBe(true);
      await sleep(50);
      expect(server.methods()).not.toContain('notifications/cancelled');
    } finally {
      await source.close();
    }
  });

  it('x-mcp-header arguments go out as headers, encoded; a tool with a bad annotation is left out and named', async () => {
    const skipped: unknown[] = [];
    const bad = { name: 'bad', inputSchema: { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } } };
    const server = endpoint({}, [TOOL, bad]);
    const source = mcp(server.config({ onToolSkipped: (tool) => skipped.push(tool) }));
    try {
      const toolset = await resolveToolset([source]);
      expect(toolset.tools.map((t) => t.name)).toEqual(['echo']);
      expect(skipped).toEqual([{ name: 'bad', reason: expect.stringContaining('is not on a string, integer or boolean property') }]);
      await dispatchTool(toolset, { id: '1', name: 'echo', input: { region: 'ü ' } });
      const sent = server.seen.find((s) => s.method === 'tools/call')?.headers;
      expect(sent?.get('mcp-param-region')).toBe(headerValue('ü '));
      expect(sent?.get('mcp-name')).toBe('echo');
    } finally {
      await source.close();
    }
  });
});

describe("onUnsupportedSchema: 'skip'", () => {
  const remote = { name: 'remote', inputSchema: { type: 'object', properties: { p: { $ref: 'https://elsewhere.example/schema.json' } } } };
  for (const protocol of ['2025-11-25', '2026-07-28'] as const) {
    it(`${protocol}: by default one tool outside the subset refuses the toolset; with 'skip' only that tool is left out, named`, async () => {
      const server = endpoint({}, [TOOL, remote]);
      if (protocol === '2025-11-25') {
        // The same lists, served by an in-process 2025 server.
        const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
        const { ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
        const make = () => {
          const legacy = new McpServer({ name: 'l', version: '1' }, { capabilities: { tools: {} } });
          legacy.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [TOOL, remote] as never }));
          return legacy;
        };
        await expect(resolveToolset([mcp({ transport: 'inprocess', server: make() })])).rejects.toMatchObject({ code: 'schema.unsupported' });
        const skipped: string[] = [];
        const toolset = await resolveToolset([mcp({ transport: 'inprocess', server: make(), onUnsupportedSchema: 'skip', onToolSkipped: ({ name }) => skipped.push(name) })]);
        expect(toolset.tools.map((t) => t.name)).toEqual(['echo']);
        expect(skipped).toEqual(['remote']);
        return;
      }
      await expect(resolveToolset([mcp(server.config())])).rejects.toMatchObject({ code: 'schema.unsupported' });
      const skipped: string[] = [];
      const toolset = await resolveToolset([mcp(server.config({ onUnsupportedSchema: 'skip', onToolSkipped: ({ name }) => skipped.push(name) }))]);
      expect(toolset.tools.map((t) => t.name)).toEqual(['echo']);
      expect(skipped).toEqual(['remote']);
    });
  }
});

describe('small rules', () => {
  it('ttlMs: negative and absent are 0, a huge one is held to a day', () => {
    expect([freshFor({ ttlMs: -5 }), freshFor({}), freshFor({ ttlMs: 'soon' }), freshFor({ ttlMs: 1e15 }), freshFor({ ttlMs: 250 })]).toEqual([0, 0, 0, MAX_TTL_MS, 250]);
  });

  it('application_type: the host’s own, else native for loopback and custom-scheme redirects, web otherwise', () => {
    const type = (uris: string[], own?: string) => (withApplicationType({ redirect_uris: uris, ...(own === undefined ? {} : { application_type: own }) }) as { application_type: string }).application_type;
    expect(type(['http://localhost:3000/cb'])).toBe('native');
    expect(type(['http://127.0.0.1/cb', 'com.example.app:/cb'])).toBe('native');
    expect(type(['http://localhost.evil.example/cb'])).toBe('web');
    expect(type(['https://host.example/cb'])).toBe('web');
    expect(type(['https://host.example/cb'], 'native')).toBe('native');
  });

  it('header values: printable ASCII as it is; white space at the ends, controls, non-ASCII and the sentinel itself in base64', () => {
    expect(headerValue('us west 1')).toBe('us west 1');
    expect(headerValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(headerValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(headerValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(headerValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });
});
