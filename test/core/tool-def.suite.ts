/**
 * `tool()` in every runtime: what it refuses (typed, naming the tool and the field), the
 * final-name rule and how a hostile name is quoted, the exact shape of the ToolDef it
 * returns, that its schemas are deep-frozen private copies, and the tool-error brand.
 */
import type { SuiteHarness } from './harness.js';
import { expectConfigError } from './helpers.js';

export function toolDefSuite(h: SuiteHarness): void {
  const { tool, isToolError, toolError, toToolResult, isValidToolName } = h.lib;
  const spec = { name: 'echo', description: 'Echoes.', parameters: { type: 'object' }, execute: (input: unknown) => input };
  const make = (extra: Record<string, unknown>) => () => tool({ ...spec, ...extra } as never);

  h.describe('tool(): refusals', () => {
    h.it('refuses a spec that is not an object', async () => {
      for (const bad of [null, undefined, 'echo']) {
        const message = await expectConfigError(h, () => tool(bad as never), 'config.invalid_value');
        h.expect(message).toBe('tool(): the spec must be an object');
      }
    });

    h.it('refuses a name that is not a string, even one that would print as a valid name', async () => {
      const message = await expectConfigError(h, make({ name: 42 }), 'tool.invalid_name');
      h.expect(message).toBe("tool(?): 'name' must be a string");
    });

    h.it('refuses each other malformed field with config.invalid_value, naming the tool and the field', async () => {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ description: 1 }, `tool("echo"): 'description' must be a string`],
        [{ execute: 'run' }, `tool("echo"): 'execute' must be a function`],
        [{ risk: 'dangerous' }, `tool("echo"): 'risk' must be one of read, write, network, execute, destructive`],
        [{ needsApproval: 'yes' }, `tool("echo"): 'needsApproval' must be a boolean`],
        [{ version: 2 }, `tool("echo"): 'version' must be a string`],
      ];
      for (const [extra, expected] of cases) {
        h.expect(await expectConfigError(h, make(extra), 'config.invalid_value')).toBe(expected);
      }
    });

    h.it('accepts every known risk label and both approval flags', () => {
      for (const risk of h.lib.TOOL_RISKS) h.expect(tool({ ...spec, risk }).risk).toBe(risk);
      h.expect(tool({ ...spec, needsApproval: false }).needsApproval).toBe(false);
    });

    h.it('names the tool and the field when a schema cannot be read or admitted', async () => {
      const opaque = { '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } };
      h.expect(await expectConfigError(h, make({ parameters: opaque }), 'config.invalid_value')).toContain(`tool("echo"): 'parameters'`);
      h.expect(await expectConfigError(h, make({ outputSchema: opaque }), 'config.invalid_value')).toContain(`tool("echo"): 'outputSchema'`);
      h.expect(await expectConfigError(h, make({ parameters: { $dynamicRef: '#a' } }), 'schema.unsupported')).toMatch(/^tool\("echo"\) parameters at /);
      h.expect(await expectConfigError(h, make({ outputSchema: { $dynamicRef: '#a' } }), 'schema.unsupported')).toMatch(/^tool\("echo"\) outputSchema at /);
    });
  });

  h.describe('tool(): the final-name rule', () => {
    h.it('allows letters, digits, _ and -, 1 to 64 characters', () => {
      for (const name of ['a', 'A_b-9', 'x'.repeat(64)]) h.expect(isValidToolName(name)).toBe(true);
      for (const name of ['', 'x'.repeat(65), 'a b', 'a.b', 'é']) h.expect(isValidToolName(name)).toBe(false);
    });

    h.it('refuses an invalid name with tool.invalid_name, quoting it and stating the rule', async () => {
      const message = await expectConfigError(h, make({ name: 'a b' }), 'tool.invalid_name');
      h.expect(message).toBe(
        `tool("a b"): tool name "a b" does not match ^[a-zA-Z0-9_-]{1,64}$ ` +
          `(letters, digits, '_' and '-', 1 to 64 characters, after prefixing)`,
      );
    });

    h.it('quotes a name of up to 80 characters whole and cuts a longer one short', async () => {
      const at80 = await expectConfigError(h, make({ name: 'n'.repeat(80) }), 'tool.invalid_name');
      h.expect(at80.startsWith(`tool("${'n'.repeat(80)}"): tool name "${'n'.repeat(80)}" does`)).toBe(true);
      const at81 = await expectConfigError(h, make({ name: 'n'.repeat(81) }), 'tool.invalid_name');
      h.expect(at81.startsWith(`tool("${'n'.repeat(80)}…"): tool name "${'n'.repeat(80)}…" does`)).toBe(true);
      const huge = await expectConfigError(h, make({ name: 'n'.repeat(1_000_000) }), 'tool.invalid_name');
      h.expect(huge.length).toBeLessThan(400);
    });
  });

  h.describe('tool(): the ToolDef', () => {
    h.it('holds exactly the fields given, with needsApproval defaulting to false', () => {
      const minimal = tool(spec);
      h.expect(Object.keys(minimal).sort()).toEqual(['description', 'execute', 'name', 'needsApproval', 'parameters']);
      h.expect(minimal.needsApproval).toBe(false);
      const full = tool({ ...spec, outputSchema: { type: 'string' }, version: '1.2', needsApproval: true, risk: 'write' });
      h.expect(Object.keys(full).sort()).toEqual(['description', 'execute', 'name', 'needsApproval', 'outputSchema', 'parameters', 'risk', 'version']);
      h.expect(full).toMatchObject({ name: 'echo', description: 'Echoes.', outputSchema: { type: 'string' }, version: '1.2', needsApproval: true, risk: 'write' });
    });

    h.it('deep-freezes private copies of its schemas, so neither side can change the contract', () => {
      const parameters = { type: 'object', properties: { tags: { type: 'array', items: { enum: ['a'] } } } };
      const outputSchema = { type: 'object', properties: { n: { type: 'integer' } } };
      const def = tool({ ...spec, parameters, outputSchema });
      parameters.properties.tags.items.enum.push('b');
      h.expect(def.parameters).toEqual({ type: 'object', properties: { tags: { type: 'array', items: { enum: ['a'] } } } });
      const nested = (def.parameters as typeof parameters).properties.tags.items;
      h.expect([Object.isFrozen(def), Object.isFrozen(def.parameters), Object.isFrozen(nested), Object.isFrozen(nested.enum)]).toEqual([true, true, true, true]);
      h.expect(() => nested.enum.push('c')).toThrow(TypeError);
      const output = (def.outputSchema as typeof outputSchema).properties.n;
      h.expect(Object.isFrozen(output)).toBe(true);
      h.expect(() => ((output as Record<string, unknown>)['type'] = 'string')).toThrow(TypeError);
    });
  });

  h.describe('tool errors', () => {
    h.it('recognises only branded values', () => {
      h.expect(isToolError(toolError('timeout', 'slow'))).toBe(true);
      for (const value of [null, undefined, 0, 'x', {}, { reason: 'timeout', message: 'slow' }]) h.expect(isToolError(value)).toBe(false);
    });

    h.it('maps a value, a tool error and a throw to the canonical result', () => {
      h.expect(toToolResult('c1', 't', { value: null })).toEqual({ callId: 'c1', toolName: 't', isError: false, output: null });
      h.expect(toToolResult('c2', 't', { value: toolError('unavailable', 'down') })).toEqual({
        callId: 'c2', toolName: 't', isError: true, output: 'down', reason: 'unavailable',
      });
      h.expect(toToolResult('c3', 't', { thrown: new Error('kaput') })).toMatchObject({ callId: 'c3', isError: true, reason: 'execution' });
    });
  });
}
