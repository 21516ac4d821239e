/** Every config refusal of spec/mcp.md: class, code, and the key named in the message. */
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, pick, run } from './helpers.js';

type Case = readonly [label: string, config: unknown, code: string, mentions: string];

const server = { connect: async () => undefined };
const http = { transport: 'streamable-http', url: 'https://mcp.example.com/v1' };
const stdio = { transport: 'stdio', command: 'mcp-server' };

const CASES: readonly Case[] = [
  ['config that is not an object', 'stdio', 'config.invalid_value', 'object'],
  ['missing transport', { command: 'x' }, 'config.missing_key', 'transport'],
  ['unknown transport', { transport: 'websocket', url: 'wss://x' }, 'config.unknown_transport', 'websocket'],
  ['stdio without command', { transport: 'stdio' }, 'config.missing_key', 'command'],
  ['streamable-http without url', { transport: 'streamable-http' }, 'config.missing_key', 'url'],
  ['inprocess without server', { transport: 'inprocess' }, 'config.missing_key', 'server'],
  ['url on stdio', { ...stdio, url: 'https://x' }, 'config.unknown_key', 'url'],
  ['http on stdio', { ...stdio, http: {} }, 'config.unknown_key', 'http'],
  ['server on stdio', { ...stdio, server }, 'config.unknown_key', 'server'],
  ['command on streamable-http', { ...http, command: 'x' }, 'config.unknown_key', 'command'],
  ['args on streamable-http', { ...http, args: [] }, 'config.unknown_key', 'args'],
  ['server on streamable-http', { ...http, server }, 'config.unknown_key', 'server'],
  ['url on inprocess', { transport: 'inprocess', server, url: 'https://x' }, 'config.unknown_key', 'url'],
  ['env on inprocess', { transport: 'inprocess', server, env: {} }, 'config.unknown_key', 'env'],
  ['a misspelled common key', { ...stdio, prefx: 'gh' }, 'config.unknown_key', 'prefx'],
  ['headers outside http', { ...http, headers: {} }, 'config.unknown_key', 'headers'],
  ['an unknown http option', { ...http, http: { timeout: 5 } }, 'config.unknown_key', 'http.timeout'],
  ['command that is not a string', { transport: 'stdio', command: 42 }, 'config.invalid_value', 'command'],
  ['empty command', { transport: 'stdio', command: '' }, 'config.invalid_value', 'command'],
  ['args not an array of strings', { ...stdio, args: ['a', 1] }, 'config.invalid_value', 'args'],
  ['env with a non-string value', { ...stdio, env: { A: 1 } }, 'config.invalid_value', 'env'],
  ['cwd not a string', { ...stdio, cwd: 3 }, 'config.invalid_value', 'cwd'],
  ['stderr of an unknown mode', { ...stdio, stderr: 'pipe' }, 'config.invalid_value', 'stderr'],
  ['url that does not parse', { ...http, url: 'not a url' }, 'config.invalid_value', 'url'],
  ['url that is not http(s)', { ...http, url: 'ftp://x/y' }, 'config.invalid_value', 'url'],
  ['http that is not an object', { ...http, http: 'x' }, 'config.invalid_value', 'http'],
  ['http.headers of the wrong type', { ...http, http: { headers: 'Bearer x' } }, 'config.invalid_value', 'http.headers'],
  ['http.headers with a non-string value', { ...http, http: { headers: { a: 1 } } }, 'config.invalid_value', 'http.headers'],
  ['http.fetch not a function', { ...http, http: { fetch: {} } }, 'config.invalid_value', 'http.fetch'],
  ['server without connect()', { transport: 'inprocess', server: {} }, 'config.invalid_value', 'server'],
  ['allow not an array', { ...stdio, allow: 'a' }, 'config.invalid_value', 'allow'],
  ['deny with a non-string', { ...stdio, deny: [1] }, 'config.invalid_value', 'deny'],
  ['prefix with a dot', { ...stdio, prefix: 'g.h' }, 'config.invalid_value', 'prefix'],
  ['empty prefix', { ...stdio, prefix: '' }, 'config.invalid_value', 'prefix'],
  ['approval of the wrong type', { ...stdio, approval: 'yes' }, 'config.invalid_value', 'approval'],
  ['approval record with a non-boolean', { ...stdio, approval: { ok: true, a: 'yes' } }, 'config.invalid_value', `boolean (not so for "a")`],
  ['risk with an unknown label', { ...stdio, risk: { ok: 'read', a: 'harmless' } }, 'config.invalid_value', `destructive (not so for "a")`],
  ['risk with an unknown label on a long name', { ...stdio, risk: { ['n'.repeat(100)]: 'x' } }, 'config.invalid_value', `(not so for "${'n'.repeat(64)}…")`],
  ['risk that is not a record', { ...stdio, risk: ['read'] }, 'config.invalid_value', 'risk'],
  ['drift of an unknown policy', { ...stdio, drift: 'ignore' }, 'config.invalid_value', 'drift'],
  ['empty id', { ...stdio, id: '' }, 'config.invalid_value', 'id'],
  ['maxTools of zero', { ...stdio, maxTools: 0 }, 'config.invalid_value', "'maxTools' must be a positive integer (got 0)"],
  ['a negative maxPages', { ...stdio, maxPages: -1 }, 'config.invalid_value', "'maxPages' must be a positive integer (got -1)"],
  ['a fractional maxSchemaBytes', { ...stdio, maxSchemaBytes: 1.5 }, 'config.invalid_value', '(got 1.5)'],
  ['maxTools as a string', { ...stdio, maxTools: '64' }, 'config.invalid_value', '(got "64")'],
  ['maxPages of NaN', { ...stdio, maxPages: Number.NaN }, 'config.invalid_value', '(got NaN)'],
  ['timeouts that is not an object', { ...stdio, timeouts: 5 }, 'config.invalid_value', 'timeouts'],
  ['an unknown timeout', { ...stdio, timeouts: { readMs: 5 } }, 'config.unknown_key', 'timeouts.readMs'],
  ['a zero connectMs', { ...stdio, timeouts: { connectMs: 0 } }, 'config.invalid_value', "'timeouts.connectMs' must be a positive number of milliseconds up to 2147483647 (got 0)"],
  ['a connectMs past the timer limit', { ...stdio, timeouts: { connectMs: 3e9 } }, 'config.invalid_value', '(got 3000000000)'],
  ['an infinite listMs', { ...stdio, timeouts: { listMs: Infinity } }, 'config.invalid_value', '(got Infinity)'],
  ['a negative callMs', { ...stdio, timeouts: { callMs: -5 } }, 'config.invalid_value', '(got -5)'],
  ['discoveryMs as a string', { ...stdio, timeouts: { discoveryMs: '100' } }, 'config.invalid_value', '(got "100")'],
  ['requireBounds that is not a boolean', { ...stdio, requireBounds: 'yes' }, 'config.invalid_value', 'requireBounds'],
  ['a protocol revision this client does not speak', { ...http, protocol: '2024-11-05' }, 'config.invalid_value', "'protocol' must be 'auto', '2026-07-28' or '2025-11-25'"],
  ['onUnsupportedSchema of an unknown policy', { ...http, onUnsupportedSchema: 'drop' }, 'config.invalid_value', 'onUnsupportedSchema'],
  ['onToolSkipped that is not a function', { ...http, onToolSkipped: true }, 'config.invalid_value', 'onToolSkipped'],
  ['an inprocess server with neither connect() nor fetch()', { transport: 'inprocess', server: { handle: () => undefined } }, 'config.invalid_value', 'createMcpHandler'],
];

export function configSuite(h: SuiteHarness): void {
  const { mcp } = h.lib;

  h.describe('config refusals', () => {
    for (const [label, config, code, mentions] of CASES) {
      h.it(`refuses ${label} with ${code}`, async () => {
        const message = await expectConfigError(h, () => mcp(config as never), code);
        h.expect(message).toContain(mentions);
      });
    }

    h.it('keeps header values out of refusal messages', async () => {
      const message = await expectConfigError(
        h,
        () => mcp({ ...http, http: { headers: { authorization: 'Bearer s3cret-token' } }, url: 'nope' } as never),
        'config.invalid_value',
      );
      h.expect(message).not.toContain('s3cret-token');
    });

    h.it('accepts every documented option without connecting', () => {
      let connects = 0;
      const counted = createWorkbenchServer();
      const connect = counted.connect.bind(counted);
      counted.connect = (transport) => {
        connects += 1;
        return connect(transport);
      };
      const source = mcp({
        transport: 'inprocess',
        server: counted,
        id: 'notes',
        allow: ['read_note'],
        deny: ['delete_note'],
        prefix: 'n',
        approval: { read_note: true },
        risk: { read_note: 'read' },
        drift: 'refuse',
        protocol: 'auto',
        onUnsupportedSchema: 'skip',
        onToolSkipped: () => undefined,
      });
      h.expect(source.id).toBe('notes');
      h.expect(connects).toBe(0);
      // A web-standard handler (createMcpHandler's shape) is an in-process server too.
      h.expect(mcp({ transport: 'inprocess', server: { fetch: async () => new Response(null) } }).id).toBeTruthy();
    });

    h.it('keeps a snapshot of the checked config: later edits to the host object do not apply', async () => {
      const allow = ['read_note', 'sleep'];
      const config = { transport: 'inprocess' as const, server: createWorkbenchServer(), allow, timeouts: { callMs: 2_000 } };
      await using source = mcp(config);
      // Edited after mcp() and before the lazy connect: only the checked copy may count.
      allow.push('delete_note');
      config.timeouts.callMs = 1;
      const tools = await source.tools();
      h.expect(tools.map((t) => t.name)).toEqual(['read_note', 'sleep']);
      // A 50 ms call outlives the edited callMs (1 ms) but not the checked one (2 s).
      const result = await run(h, pick(tools, 'sleep'), { ms: 50 });
      h.expect(result).toMatchObject({ isError: false, output: 'slept 50ms' });
    });

    h.it('reads each config value once: a getter cannot pass the check and then change', async () => {
      let reads = 0;
      const config = {
        transport: 'inprocess' as const,
        server: createWorkbenchServer(),
        get allow() {
          reads += 1;
          return reads === 1 ? ['read_note'] : ['read_note', 'delete_note'];
        },
      };
      await using source = mcp(config);
      h.expect((await source.tools()).map((t) => t.name)).toEqual(['read_note']);
      h.expect(reads).toBe(1);
    });

    h.it('derives a source id without secrets from an http url (host only)', () => {
      const source = mcp({ transport: 'streamable-http', url: 'https://mcp.example.com/mcp/sk-SECRET789/sse?token=abc' });
      h.expect(source.id).toBe('mcp:http:mcp.example.com');
    });

    h.it('refuses credentials in the url without repeating them', async () => {
      const message = await expectConfigError(h, () => mcp({ transport: 'streamable-http', url: 'https://user:tok-SECRET456@mcp.example.com/' }), 'config.invalid_value');
      h.expect(message).toContain('http.headers');
      h.expect(message).not.toContain('SECRET');
    });

    h.it('refuses NUL bytes in stdio strings without repeating the value', async () => {
      for (const bad of [{ env: { API_KEY: 'sk-live-SECRET\u0000' } }, { args: ['--token=SECRET\u0000'] }, { command: 'x\u0000SECRET' }, { cwd: '/tmp\u0000SECRET' }]) {
        const message = await expectConfigError(h, () => mcp({ ...stdio, ...bad } as never), 'config.invalid_value');
        h.expect(message).not.toContain('SECRET');
        h.expect(message).toContain('NUL');
      }
    });

    if (h.runtime !== 'node') {
      h.it('refuses stdio on the edge entry with config.transport_unavailable', async () => {
        const message = await expectConfigError(h, () => mcp({ transport: 'stdio', command: 'x' }), 'config.transport_unavailable');
        h.expect(message).toContain('@rulvar/core/node');
      });
    }
  });
}
