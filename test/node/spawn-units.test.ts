/**
 * Unit tests of planSpawn and completeSpawn (src/core/engine/spawn.ts): how ctx.agent's call,
 * its profile and the engine's defaults combine (the call first, then the profile, then the
 * defaults), every value refused with the ConfigError runtime.md names before anything runs,
 * and the keys a spawn gets. The suites reach these only through whole runs with valid
 * options; these pin each choice and each refusal.
 */
import { describe, expect, it } from 'vitest';
import { completeSpawn, DEFAULT_MAX_TOOL_CALLS_PER_TURN, DEFAULT_MAX_TURNS, DEFAULT_MODEL_CALL_MS, planSpawn } from '../../src/core/engine/spawn.js';
import type { AgentOptions, EngineOptions } from '../../src/core/engine/types.js';
import { ConfigError } from '../../src/core/errors.js';
import type { ModelAdapter } from '../../src/core/model/types.js';
import type { ToolDef, ToolSourceSession } from '../../src/core/tools/types.js';

const adapter = (id: string): ModelAdapter => ({ id, generate: () => Promise.resolve({ text: '', toolCalls: [], stop: 'end' }) }) as unknown as ModelAdapter;
const ADAPTERS = new Map([['a', adapter('a')], ['b', adapter('b')]]);
const plan = (options: Partial<EngineOptions>, call: AgentOptions = {}, prompt: unknown = 'go') =>
  planSpawn({ adapters: [...ADAPTERS.values()], ...options }, ADAPTERS, prompt as string, call);
const refusal = (work: () => unknown): [string, string] => {
  try {
    work();
  } catch (error) {
    if (error instanceof ConfigError) return [error.code, error.message];
    throw error;
  }
  throw new Error('not refused');
};

describe('planSpawn: the call, then the profile, then the defaults', () => {
  const profiles = { writer: { model: 'b:pro', system: 'write', maxTurns: 3, maxToolCallsPerTurn: 4, modelCallMs: 5_000, permissions: { preset: 'strict' as const } } };

  it('without a profile the defaults, and the library defaults under them', () => {
    const p = plan({ defaults: { model: 'a:m' } });
    expect([p.modelRef, p.adapter.id, p.model, p.maxTurns, p.maxToolCallsPerTurn, p.modelCallMs, p.system, p.agentType]).toEqual(['a:m', 'a', 'm', DEFAULT_MAX_TURNS, DEFAULT_MAX_TOOL_CALLS_PER_TURN, DEFAULT_MODEL_CALL_MS, undefined, undefined]);
    expect([DEFAULT_MAX_TURNS, DEFAULT_MAX_TOOL_CALLS_PER_TURN, DEFAULT_MODEL_CALL_MS]).toEqual([25, 128, 600_000]);
    expect(p.permissionScopes).toEqual([]);
    expect(p.tools).toEqual([]);
  });

  it('a profile wins over the defaults, and the call over the profile where the call may say', () => {
    const defaults = { model: 'a:m', maxTurns: 9, maxToolCallsPerTurn: 9, modelCallMs: 9_000, profiles, permissions: { preset: 'open' as const } };
    const byProfile = plan({ defaults }, { agentType: 'writer' });
    expect([byProfile.modelRef, byProfile.system, byProfile.maxTurns, byProfile.maxToolCallsPerTurn, byProfile.modelCallMs, byProfile.profile]).toEqual(['b:pro', 'write', 3, 4, 5_000, profiles.writer]);
    expect(byProfile.permissionScopes).toEqual([{ preset: 'open' }, { preset: 'strict' }]);
    const byCall = plan({ defaults }, { agentType: 'writer', model: 'a:x', system: 'mine', maxTurns: 2, permissions: { preset: 'standard' } });
    expect([byCall.modelRef, byCall.system, byCall.maxTurns]).toEqual(['a:x', 'mine', 2]);
    expect(byCall.permissionScopes).toEqual([{ preset: 'open' }, { preset: 'strict' }, { preset: 'standard' }]);
    expect(plan({ defaults: { model: 'a:m', maxTurns: 7 } }).maxTurns).toBe(7);
  });

  it('the descriptor that counts identical spawns holds the type, model, system and prompt', () => {
    const defaults = { model: 'a:m', profiles: { p: {}, q: {} } };
    const descriptors = [plan({ defaults }), plan({ defaults }, { agentType: 'p' }), plan({ defaults }, { agentType: 'q' }), plan({ defaults }, { system: 's' }), plan({ defaults }, { system: 't' }), plan({ defaults }, { model: 'b:m' }), plan({ defaults }, {}, 'other')].map((p) => p.descriptor);
    expect(new Set(descriptors).size).toBe(descriptors.length);
    expect(plan({ defaults }).descriptor).toBe(plan({ defaults }).descriptor);
  });
});

describe('planSpawn: each bad value is refused before anything runs', () => {
  const model = { model: 'a:m' };
  const cases: [string, () => unknown, string, string][] = [
    ['a prompt that is not a string', () => plan({ defaults: model }, {}, 42), 'config.invalid_value', 'ctx.agent needs a string prompt'],
    ['an unknown agent type', () => plan({ defaults: { ...model, profiles: { a: {}, b: {} } } }, { agentType: 'c' }), 'agent.unknown_type', 'no agent profile is named "c" (profiles: a, b)'],
    ['an agent type with no profiles', () => plan({ defaults: model }, { agentType: 'c' }), 'agent.unknown_type', 'no agent profile is named "c" (profiles: none)'],
    ['an agent type from Object.prototype', () => plan({ defaults: { ...model, profiles: {} } }, { agentType: 'toString' }), 'agent.unknown_type', 'no agent profile is named "toString" (profiles: none)'],
    ['no model anywhere', () => plan({}), 'config.missing_key', "no model for this agent: set defaults.model, the profile's model or the call's"],
    ['a model of an unknown adapter', () => plan({ defaults: { model: 'z:m' } }), 'model.unknown_adapter', 'no model adapter has id "z" (adapters: a, b)'],
  ];
  for (const [name, work, code, message] of cases) {
    it(`${name}: ${code}`, () => expect(refusal(work)).toEqual([code, message]));
  }

  it('maxTurns and maxToolCallsPerTurn must be positive safe integers, 1 included', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(refusal(() => plan({ defaults: { ...model, maxTurns: bad } }))).toEqual(['config.invalid_value', `maxTurns must be a positive integer, not ${String(bad)}`]);
      expect(refusal(() => plan({ defaults: { ...model, maxToolCallsPerTurn: bad } }))).toEqual(['config.invalid_value', `maxToolCallsPerTurn must be a positive integer, not ${String(bad)}`]);
    }
    expect(refusal(() => plan({ defaults: model }, { maxTurns: '3' as never }))[0]).toBe('config.invalid_value');
    const one = plan({ defaults: { ...model, maxTurns: 1, maxToolCallsPerTurn: 1 } });
    expect([one.maxTurns, one.maxToolCallsPerTurn]).toEqual([1, 1]);
  });

  it('modelCallMs must be a number of milliseconds from 1 to 2^31 - 1, both ends included', () => {
    for (const bad of [0, -5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY, '100' as never]) {
      expect(refusal(() => plan({ defaults: { ...model, modelCallMs: bad } }))).toEqual(['config.invalid_value', `modelCallMs must be a number of milliseconds from 1 to 2147483647, not ${String(bad)}`]);
    }
    expect(plan({ defaults: { ...model, modelCallMs: 2 ** 31 - 1 } }).modelCallMs).toBe(2 ** 31 - 1);
    expect(plan({ defaults: { ...model, modelCallMs: 0.5 } }).modelCallMs).toBe(0.5);
  });
});

describe('completeSpawn: the toolset and the keys', () => {
  const run = { runId: 'run-1', workflow: 'wf', incarnation: undefined };

  it('a tool source is listed with the run\'s signal; keys are a content hash with the ordinal, a 16-character approval prefix', async () => {
    const seen: (ToolSourceSession | undefined)[] = [];
    const tool: ToolDef = { name: 't', description: 't', parameters: { type: 'object' }, needsApproval: false, execute: () => Promise.resolve('ok') };
    const source = { kind: 'source' as const, id: 'src', tools: (session?: ToolSourceSession) => (seen.push(session), Promise.resolve([tool])) };
    const signal = new AbortController().signal;
    const p = plan({ defaults: { model: 'a:m' } }, { tools: [source as never] });
    const spawn = await completeSpawn(p, run, 3, { adapters: [] }, signal);
    expect(seen.map((s) => s?.signal)).toEqual([signal]);
    expect(spawn.key).toMatch(/^[0-9a-f]{64}-3$/);
    expect(spawn.approvalPrefix).toBe(`${spawn.key.slice(0, 16)}-3`);
    expect(spawn.idempotencyPrefix).toMatch(/^rulvar-[0-9a-f]{32}$/);
    const again = await completeSpawn(p, { ...run, runId: 'run-2' }, 3, { adapters: [] }, signal);
    expect(again.key).toBe(spawn.key);
    expect(again.idempotencyPrefix).not.toBe(spawn.idempotencyPrefix);
    const reborn = await completeSpawn(p, { ...run, incarnation: 'i2' }, 3, { adapters: [] }, signal);
    expect([reborn.key, reborn.idempotencyPrefix === spawn.idempotencyPrefix]).toEqual([spawn.key, false]);
  });
});
