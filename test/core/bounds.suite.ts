/**
 * Every bound and guard of spec/mcp.md "Bounds" against the hostile kit, over two transports:
 * each case asserts the error class, its code and what the message names, and a case with a
 * time bound asserts that it waited the bound out and ended within(bound) of starting.
 */
import { HOSTILE, BAD_NAMES, hostileServer, hungHandshakeServer, hungFetch, listChangedStorm, writeDeepSchemas, type Behaviour } from '../fixtures/hostile.js';
import { createMcpEndpoint } from '../fixtures/http-server.js';
import { intercept, never } from '../fixtures/hostile-wire.js';
import { createWorkbenchServer } from '../../examples/servers/workbench.js';
import type { SuiteHarness } from './harness.js';
import { expectConfigError, expectHonoured, pick, run, within } from './helpers.js';
import { flavours } from './flavours.js';

/** A timed case's own timeout: its bound's figure, plus room to set up and close a source. */
const timedTest = (boundMs: number) => within(boundMs) + 4_000;
/**
 * Timeouts of the cases with no bound to hold them to, which can only fail by hanging: about
 * 20× what each takes idle over HTTP.
 */
const STORM_TEST_MS = 6_000;
const CEILING_TEST_MS = 3_000;
/** A message quotes a server's cursor or name cut short (80 characters), never in full. */
const SHORT_MESSAGE = 600;
const MB = 1_000_000;

export function boundsSuite(h: SuiteHarness): void {
  for (const flavour of flavours(h)) {
    const serve = (behaviour: () => Behaviour) => () => hostileServer(behaviour());

    /**
     * Opens a source over the fixture and expects a ConfigError with `code`; given the bound
     * that should end the sweep, also that the bound was waited out and honoured. A guard
     * with no time bound that fails to fire loops until the test's own timeout.
     */
    const refuses = async (behaviour: () => Behaviour, options: object, code: string, boundMs?: number) => {
      const source = flavour.open(serve(behaviour), options as Record<string, unknown>);
      const started = Date.now();
      try {
        const message = await expectConfigError(h, () => source.tools(), code);
        if (boundMs !== undefined) expectHonoured(h, started, Date.now(), boundMs);
        h.expect(message).toContain(source.id);
        return message;
      } finally {
        await source.close();
      }
    };

    h.describe(`bounds and guards (${flavour.name})`, () => {
      h.it('cursor echo is refused on the second page (discovery.cursor_echo)', async () => {
        const message = await refuses(HOSTILE.cursorEcho, {}, 'discovery.cursor_echo');
        h.expect(message).toContain('"A"');
      });

      h.it('an alternating cursor pair is refused naming the revisited cursor (discovery.cursor_cycle)', async () => {
        const message = await refuses(HOSTILE.alternatingPair, {}, 'discovery.cursor_cycle');
        h.expect(message).toContain('"A"');
      });

      h.it('a cycle of period 5 is refused when it closes (discovery.cursor_cycle)', async () => {
        const message = await refuses(HOSTILE.cycleOfFive, {}, 'discovery.cursor_cycle');
        h.expect(message).toContain('"c1"');
        h.expect(message).toContain('page 6');
      });

      h.it('1 MB unique cursors stop typed at maxPages (discovery.max_pages)', async () => {
        const message = await refuses(() => HOSTILE.hugeCursors(MB), { maxPages: 12 }, 'discovery.max_pages');
        h.expect(message).toContain('12 pages');
        h.expect(message.length).toBeLessThan(SHORT_MESSAGE);
      });

      h.it('1 MB unique cursors stop typed at timeouts.discoveryMs (discovery.deadline)', async () => {
        const message = await refuses(() => HOSTILE.hugeCursors(MB), { timeouts: { discoveryMs: 600 } }, 'discovery.deadline', 600);
        h.expect(message.length).toBeLessThan(SHORT_MESSAGE);
      }, timedTest(600));

      h.it('a cycle of 1 MB cursors that differ only at the end is refused when it closes (discovery.cursor_cycle)', async () => {
        const message = await refuses(() => HOSTILE.hugeCursorCycle(MB), {}, 'discovery.cursor_cycle');
        h.expect(message).toContain('page 4');
        h.expect(message).toContain(`"${'c'.repeat(80)}…"`);
        h.expect(message.length).toBeLessThan(SHORT_MESSAGE);
      });

      h.it('a 4 MB cursor echo is refused on page 2, quoted cut short (discovery.cursor_echo)', async () => {
        const message = await refuses(() => HOSTILE.hugeCursorEcho(4 * MB), {}, 'discovery.cursor_echo');
        h.expect(message).toContain('page 2');
        h.expect(message.length).toBeLessThan(SHORT_MESSAGE);
      });

      h.it('a short cursor spelling the digest of an earlier long one is not taken for it', async () => {
        const source = flavour.open(serve(HOSTILE.digestLookalike));
        try {
          h.expect((await source.tools()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
        } finally {
          await source.close();
        }
      });

      h.it('unique cursors over empty pages stop at maxPages (discovery.max_pages)', async () => {
        const message = await refuses(HOSTILE.emptyPagesForever, { maxPages: 20 }, 'discovery.max_pages');
        h.expect(message).toContain('20 pages');
      });

      h.it('unique cursors over empty pages stop at timeouts.discoveryMs (discovery.deadline)', async () => {
        const message = await refuses(HOSTILE.emptyPagesForever, { timeouts: { discoveryMs: 600 } }, 'discovery.deadline', 600);
        h.expect(message).toContain('600 ms');
        // Between pages in process; on a socket the deadline can also land inside a page.
        h.expect(message).toMatch(/after \d+ pages|during page \d+/);
      }, timedTest(600));

      h.it('an endlessly growing list stops at maxTools, naming count and cap (discovery.max_tools)', async () => {
        const message = await refuses(() => HOSTILE.growingForever(50), { maxTools: 120 }, 'discovery.max_tools');
        h.expect(message).toContain('150 tools');
        h.expect(message).toContain('maxTools = 120');
      });

      h.it('an allow list cannot admit past maxTools', async () => {
        await refuses(() => HOSTILE.growingForever(50), { maxTools: 120, allow: ['g1_0'] }, 'discovery.max_tools');
      });

      h.it('a list exactly at maxTools and maxPages is imported whole', async () => {
        const exact: Behaviour = { list: (c) => (c === undefined ? { tools: toolsOf(3), nextCursor: 'p' } : { tools: toolsOf(2, 3) }) };
        const source = flavour.open(serve(() => exact), { maxTools: 5, maxPages: 2 });
        try {
          h.expect((await source.tools()).length).toBe(5);
        } finally {
          await source.close();
        }
      });

      h.it('slow-but-prompt pages pass listMs but stop at discoveryMs (discovery.deadline)', async () => {
        await refuses(() => HOSTILE.slowPagesForever(20), { timeouts: { listMs: 2_000, discoveryMs: 600 } }, 'discovery.deadline', 600);
      }, timedTest(600));

      h.it('a hung first page fails at listMs (discovery.page_timeout)', async () => {
        const message = await refuses(HOSTILE.hungFirstPage, { timeouts: { listMs: 600 } }, 'discovery.page_timeout', 600);
        h.expect(message).toContain('listMs = 600');
      }, timedTest(600));

      h.it('a hung last page fails at the discovery deadline, not at a longer listMs (discovery.deadline)', async () => {
        const message = await refuses(HOSTILE.hungLastPage, { timeouts: { listMs: 10_000, discoveryMs: 600 } }, 'discovery.deadline', 600);
        h.expect(message).toContain('during page 3');
      }, timedTest(600));

      h.it('a hung first page with only discoveryMs fails at the deadline (discovery.deadline)', async () => {
        await refuses(HOSTILE.hungFirstPage, { timeouts: { discoveryMs: 600 } }, 'discovery.deadline', 600);
      }, timedTest(600));

      h.it('a hung handshake fails at connectMs (connect.timeout)', async () => {
        const source =
          flavour.name === 'inprocess'
            ? h.lib.mcp({ transport: 'inprocess', server: hungHandshakeServer(), timeouts: { connectMs: 600 } })
            : h.lib.mcp({ transport: 'streamable-http', url: 'https://hung.test/mcp', http: { fetch: hungFetch }, timeouts: { connectMs: 600 } });
        const started = Date.now();
        const message = await expectConfigError(h, () => source.tools(), 'connect.timeout');
        expectHonoured(h, started, Date.now(), 600);
        h.expect(message).toContain('connectMs = 600');
        await source.close();
      }, timedTest(600));

      h.it('a hung call is a timeout error result at callMs, never a throw', async () => {
        const source = flavour.open(serve(HOSTILE.hungCall), { timeouts: { callMs: 600 } });
        try {
          const stall = pick(await source.tools(), 'stall');
          const started = Date.now();
          h.expect(await run(h, stall, {})).toMatchObject({ isError: true, reason: 'timeout' });
          expectHonoured(h, started, Date.now(), 600);
        } finally {
          await source.close();
        }
      }, timedTest(600));

      h.it('a schema over maxSchemaBytes is refused naming tool and bytes (schema.too_large)', async () => {
        const message = await refuses(() => HOSTILE.schemaOverCap(5_000), { maxSchemaBytes: 2_000 }, 'schema.too_large');
        h.expect(message).toContain('"huge"');
        h.expect(message).toMatch(/50\d\d bytes/);
      });

      /** UTF-8 bytes of a schema as JSON writes it, counted independently of the library. */
      const utf8Bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).byteLength;
      const blob = (description: string) => ({ type: 'object' as const, properties: { blob: { type: 'string', description } } });
      const lists = (schemas: { inputSchema: ReturnType<typeof blob>; outputSchema?: ReturnType<typeof blob> }): Behaviour => ({
        list: () => ({ tools: [{ name: 'both', ...schemas }] }),
      });

      h.it('maxSchemaBytes counts the outputSchema too (schema.too_large)', async () => {
        const inputSchema = blob('i'.repeat(1_200));
        const outputSchema = blob('o'.repeat(1_200));
        const inputOnly = utf8Bytes(inputSchema);
        const total = inputOnly + utf8Bytes(outputSchema);
        h.expect(inputOnly).toBeLessThan(2_000);
        h.expect(total).toBeGreaterThan(2_000);
        // The input schema alone fits under the cap...
        const alone = flavour.open(serve(() => lists({ inputSchema })), { maxSchemaBytes: 2_000 });
        try {
          h.expect((await alone.tools()).map((t) => t.name)).toEqual(['both']);
        } finally {
          await alone.close();
        }
        // ...and with its outputSchema the tool is refused, measured as the sum.
        const message = await refuses(() => lists({ inputSchema, outputSchema }), { maxSchemaBytes: 2_000 }, 'schema.too_large');
        h.expect(message).toContain('"both"');
        h.expect(message).toContain(`has ${total} bytes of schema`);
      });

      h.it('maxSchemaBytes counts UTF-8 bytes, not characters (schema.too_large)', async () => {
        const inputSchema = blob('€'.repeat(500) + 'é'.repeat(100) + '😀'.repeat(50));
        const characters = JSON.stringify(inputSchema).length;
        const bytes = utf8Bytes(inputSchema);
        h.expect(characters).toBeLessThan(1_500);
        h.expect(bytes).toBeGreaterThan(1_500);
        const message = await refuses(() => lists({ inputSchema }), { maxSchemaBytes: 1_500 }, 'schema.too_large');
        h.expect(message).toContain(`has ${bytes} bytes of schema, past maxSchemaBytes = 1500`);
      });

      /** A server listing a schema nested 100,000 deep, which no JSON.stringify can write. */
      const deepSource = (options: Record<string, unknown>) => {
        const make = serve(() => HOSTILE.deepSchema(100_000));
        if (flavour.name === 'inprocess') return flavour.open(make, options);
        const fetch = writeDeepSchemas(createMcpEndpoint(make).fetch);
        return h.lib.mcp({ transport: 'streamable-http', url: 'https://hostile.test/mcp', http: { fetch }, ...options });
      };

      // A schema no JSON.stringify can write is no schema a modern front (which writes its answers) can send.
      const deepIt = h.modern === undefined ? h.it : () => undefined;
      deepIt('a schema nested 100,000 deep is schema.unsupported from tools() and resolveToolset, with maxSchemaBytes', async () => {
        const source = deepSource({ maxSchemaBytes: 16_384 });
        try {
          const message = await expectConfigError(h, () => source.tools(), 'schema.unsupported');
          h.expect(message).toContain(source.id);
          h.expect(message).toContain('"deep"');
          h.expect(message).toContain('deeper than 100 levels');
          // Not the connection's fault: the toolset refuses with the same typed code.
          await expectConfigError(h, () => h.lib.resolveToolset([source]), 'schema.unsupported');
        } finally {
          await source.close();
        }
      });

      deepIt('a schema nested 100,000 deep is listed by tools() and refused by resolveToolset, without a byte cap', async () => {
        const source = deepSource({});
        try {
          h.expect((await source.tools()).map((t) => t.name).sort()).toEqual(['deep', 'fine']);
          const message = await expectConfigError(h, () => h.lib.resolveToolset([source]), 'schema.unsupported');
          h.expect(message).toContain('"deep"');
          h.expect(message).toContain('deeper than 100 levels');
        } finally {
          await source.close();
        }
      });

      deepIt('a deep schema on a denied tool costs nothing', async () => {
        const source = deepSource({ deny: ['deep'], maxSchemaBytes: 16_384 });
        try {
          h.expect((await source.tools()).map((t) => t.name)).toEqual(['fine']);
        } finally {
          await source.close();
        }
      });

      h.it('maxSchemaBytes is measured after filtering: a denied oversized tool costs nothing', async () => {
        const source = flavour.open(serve(() => HOSTILE.schemaOverCap(5_000)), { maxSchemaBytes: 2_000, deny: ['huge'] });
        try {
          h.expect((await source.tools()).map((t) => t.name)).toEqual(['small']);
        } finally {
          await source.close();
        }
      });

      for (const name of BAD_NAMES) {
        h.it(`a server name like ${JSON.stringify(name.slice(0, 12))} is refused (tool.invalid_name)`, async () => {
          await refuses(() => HOSTILE.badName(name), {}, 'tool.invalid_name');
        });
      }

      h.it('the same name twice in one list is refused (tool.duplicate_name)', async () => {
        await refuses(HOSTILE.duplicateName, {}, 'tool.duplicate_name');
      });

      h.it('1,000 list_changed notifications during sweeps neither hang nor corrupt the import', async () => {
        const storms: ReturnType<typeof listChangedStorm>[] = [];
        const source = flavour.open(() => {
          const storm = listChangedStorm(1_000);
          storms.push(storm);
          return storm;
        });
        try {
          for (let i = 0; i < 12; i += 1) {
            h.expect((await source.tools()).map((t) => t.name)).toEqual(['a', 'b']);
          }
          h.expect(storms[0]?.sent).toBe(1_000);
          // Once the storm is over (over HTTP its tail may still be in the notification stream)
          // the list is cached again: a tools() call that makes no wire call comes soon.
          let cachedAt = -1;
          for (let i = 0; i < 50 && cachedAt < 0; i += 1) {
            const lists = storms[0]?.lists;
            await source.tools();
            if (storms[0]?.lists === lists) cachedAt = i;
          }
          h.expect(cachedAt).toBeGreaterThanOrEqual(0);
        } finally {
          await source.close();
        }
      }, STORM_TEST_MS);
    });
  }

  // The 2025 handshake (initialize, notifications/initialized); the 2026-07-28 wire has none.
  if (h.modern === undefined) h.describe('bounds that cover a handshake', () => {
    /** In process: the first connect serves the workbench, every later one never answers the handshake. */
    const reconnectHangsInProcess = () => {
      const server = createWorkbenchServer();
      let connects = 0;
      const wrapped = { connect: (transport: Parameters<typeof server.connect>[0]) => ((connects += 1) === 1 ? server.connect(transport) : hungHandshakeServer().connect(transport)) };
      return { wrapped, lose: () => server.close() };
    };

    h.it('a call that must reconnect ends at callMs when the new handshake never finishes (in process)', async () => {
      const { wrapped, lose } = reconnectHangsInProcess();
      const source = h.lib.mcp({ transport: 'inprocess', server: wrapped, timeouts: { callMs: 600 } });
      try {
        const tool = pick(await source.tools(), 'list_notes');
        await lose();
        const started = Date.now();
        const result = await run(h, tool, {});
        expectHonoured(h, started, Date.now(), 600);
        h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
        h.expect(JSON.stringify(result)).toContain('did not connect within timeouts.callMs = 600 ms');
      } finally {
        await source.close();
      }
    }, timedTest(600));

    h.it('a call that must reconnect ends at callMs when notifications/initialized is never accepted (HTTP)', async () => {
      const endpoint = createMcpEndpoint(createWorkbenchServer);
      let lost = false;
      const fetch = intercept(endpoint.fetch, (exchange) => (lost && exchange.method === 'notifications/initialized' ? never(exchange.request.signal) : undefined));
      const source = h.lib.mcp({ transport: 'streamable-http', url: 'https://wire.test/mcp', http: { fetch }, timeouts: { callMs: 600 } });
      try {
        const tool = pick(await source.tools(), 'list_notes');
        await endpoint.forgetSessions();
        lost = true;
        // The first call learns the session is gone (404); the next one reconnects.
        h.expect(await run(h, tool, {})).toMatchObject({ isError: true, reason: 'unavailable' });
        const started = Date.now();
        const result = await run(h, tool, {});
        expectHonoured(h, started, Date.now(), 600);
        h.expect(result).toMatchObject({ isError: true, reason: 'timeout' });
        h.expect(fetch.initializes).toBe(2);
      } finally {
        await source.close();
      }
    }, timedTest(600));

    for (const [name, open] of [
      ['in process', () => h.lib.mcp({ transport: 'inprocess', server: hungHandshakeServer(), timeouts: { discoveryMs: 600 } })],
      ['HTTP', () => h.lib.mcp({ transport: 'streamable-http', url: 'https://hung.test/mcp', http: { fetch: hungFetch }, timeouts: { discoveryMs: 600 } })],
    ] as const) {
      h.it(`a cold tools() whose handshake never finishes fails at discoveryMs (discovery.deadline, ${name})`, async () => {
        const source = open();
        try {
          const started = Date.now();
          const message = await expectConfigError(h, () => source.tools(), 'discovery.deadline');
          expectHonoured(h, started, Date.now(), 600);
          h.expect(message).toContain('deadline of 600 ms while connecting');
        } finally {
          await source.close();
        }
      }, timedTest(600));
    }
  });

  // Object graphs handed over in process, not a wire: nothing of them differs between revisions.
  if (h.modern === undefined) h.describe('schema graphs only an in-process server can hand over', () => {
    const listing = (inputSchema: Record<string, unknown>) =>
      h.lib.mcp({
        transport: 'inprocess',
        server: hostileServer({ list: () => ({ tools: [{ name: 'graph', inputSchema: inputSchema as { type: 'object' } }] }) }),
        maxSchemaBytes: 16_384,
      });

    h.it('a schema that contains itself is schema.unsupported from tools(), not a hang', async () => {
      const schema: Record<string, unknown> = { type: 'object' };
      schema['properties'] = { self: schema };
      await using source = listing(schema);
      const message = await expectConfigError(h, () => source.tools(), 'schema.unsupported');
      h.expect(message).toContain('deeper than 100 levels');
    });

    h.it('shared subobjects that would serialize to 2^40 values are counted only up to a ceiling (schema.too_large)', async () => {
      let node: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 40; i += 1) node = { allOf: [node, node] }; // 83 levels deep, under the limit
      await using source = listing({ type: 'object', properties: { x: node } });
      const message = await expectConfigError(h, () => source.tools(), 'schema.too_large');
      // The ceiling is the largest wire message (10 MiB), counted in about 150 ms; counting
      // on past it would take hours, which is what the test's own timeout catches.
      h.expect(message).toContain(`has more than ${10 * 1024 * 1024} bytes of schema`);
    }, CEILING_TEST_MS);
  });

  h.describe('requireBounds', () => {
    const server = { connect: async () => undefined };
    h.it('names every missing bound in one error (config.bounds_required)', async () => {
      const message = await expectConfigError(h, () => h.lib.mcp({ transport: 'inprocess', server, requireBounds: true }), 'config.bounds_required');
      for (const key of ['maxTools', 'maxPages', 'maxSchemaBytes', 'timeouts.discoveryMs']) h.expect(message).toContain(key);
    });

    h.it('names only what is still missing', async () => {
      const message = await expectConfigError(
        h,
        () => h.lib.mcp({ transport: 'inprocess', server, requireBounds: true, maxTools: 10, maxPages: 2, timeouts: { listMs: 5 } }),
        'config.bounds_required',
      );
      h.expect(message).toContain('maxSchemaBytes, timeouts.discoveryMs');
      h.expect(message).not.toContain('maxTools');
    });

    h.it('accepts a fully bounded config', () => {
      const source = h.lib.mcp({
        transport: 'inprocess',
        server,
        requireBounds: true,
        maxTools: 10,
        maxPages: 2,
        maxSchemaBytes: 1_000,
        timeouts: { discoveryMs: 1_000 },
      });
      h.expect(source.id).toBe('mcp:inprocess');
    });
  });
}

function toolsOf(n: number, from = 0) {
  return Array.from({ length: n }, (_, i) => ({ name: `t${from + i}`, inputSchema: { type: 'object' as const } }));
}
