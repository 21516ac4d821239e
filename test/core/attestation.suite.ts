/**
 * Toolset attestations in every runtime, beyond the happy path in hash.suite.ts: the exact
 * mismatch message (its parts, their order, the cap on names per list) and the refusal of
 * each malformed field of a pin read back from a file.
 */
import type { ToolAuthority, ToolContract } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectConfigError } from './helpers.js';

type AttestedInput = ToolContract & ToolAuthority;

export function attestationSuite(h: SuiteHarness): void {
  const { ToolsetAttestationError, attestToolset, checkToolsetAttestation, toolsetHash, authorityHash } = h.lib;
  const PREFIX = 'toolset does not match its attestation: ';
  const named = (name: string): AttestedInput => ({ name, description: name, parameters: true, needsApproval: false });
  const resolved = async (tools: readonly AttestedInput[]) => ({ tools, toolsetHash: await toolsetHash(tools), authorityHash: await authorityHash(tools) });
  const names = (count: number) => Array.from({ length: count }, (_, i) => `t${String(i).padStart(2, '0')}`);
  const quoted = (list: readonly string[]) => list.map((n) => `"${n}"`).join(', ');

  h.describe('toolset attestation: the mismatch message', () => {
    h.it('lists changed, missing and unexpected tools in that order, each part only when it has names', () => {
      const changed = [{ name: 'a', contract: true, authority: false }, { name: 'b', contract: false, authority: true }];
      const all = new ToolsetAttestationError(changed, ['m'], ['u', 'v']);
      h.expect(all.message).toBe(`${PREFIX}changed: "a" (contract), "b" (authority); missing: "m"; unexpected: "u", "v"`);
      h.expect(new ToolsetAttestationError([], ['m'], []).message).toBe(`${PREFIX}missing: "m"`);
      h.expect(new ToolsetAttestationError([], [], ['u']).message).toBe(`${PREFIX}unexpected: "u"`);
      h.expect(new ToolsetAttestationError([{ name: 'c', contract: true, authority: true }], [], []).message).toBe(
        `${PREFIX}changed: "c" (contract, authority)`,
      );
    });

    h.it('says so when only the toolset hashes differ', async () => {
      h.expect(new ToolsetAttestationError([], [], []).message).toBe(`${PREFIX}its hashes differ although no single tool does`);
      const toolset = await resolved([named('a')]);
      const pin = await attestToolset(toolset);
      const error = await caught(() => checkToolsetAttestation(toolset, { ...pin, authorityHash: 'f'.repeat(64) }));
      h.expect((error as Error).message).toBe(`${PREFIX}its hashes differ although no single tool does`);
    });

    h.it('names at most 20 tools per list and counts the rest', () => {
      h.expect(new ToolsetAttestationError([], names(20), []).message).toBe(`${PREFIX}missing: ${quoted(names(20))}`);
      h.expect(new ToolsetAttestationError([], names(21), []).message).toBe(`${PREFIX}missing: ${quoted(names(20))} and 1 more`);
      h.expect(new ToolsetAttestationError([], [], names(45)).message).toBe(`${PREFIX}unexpected: ${quoted(names(20))} and 25 more`);
    });

    h.it('keeps the full lists as frozen data', async () => {
      const pin = await attestToolset(await resolved(names(30).map(named)));
      const error = await caught(async () => checkToolsetAttestation(await resolved([]), pin));
      const e = error as InstanceType<typeof ToolsetAttestationError>;
      h.expect(e.code).toBe('toolset.attestation_mismatch');
      h.expect(e.missing).toEqual(names(30));
      h.expect([Object.isFrozen(e.changed), Object.isFrozen(e.missing), Object.isFrozen(e.unexpected)]).toEqual([true, true, true]);
    });
  });

  h.describe('toolset attestation: a malformed pin', () => {
    const HASH = 'a'.repeat(64);
    const entry = { name: 'a', contractHash: HASH, authorityHash: HASH };
    const pinOf = (extra: Record<string, unknown>) => ({ format: 'rulvar.toolset-attestation/1', toolsetHash: HASH, authorityHash: HASH, tools: [entry], ...extra });
    const CASES: ReadonlyArray<readonly [string, unknown, string]> = [
      ['null', null, 'not an object'],
      ['a string', 'pin', 'not an object'],
      ['another format', pinOf({ format: 'rulvar.toolset-attestation/2' }), "'format' must be 'rulvar.toolset-attestation/1'"],
      ['an uppercase toolsetHash', pinOf({ toolsetHash: HASH.toUpperCase() }), "'toolsetHash' must be a lowercase hex sha256"],
      ['a numeric authorityHash', pinOf({ authorityHash: 1 }), "'authorityHash' must be a lowercase hex sha256"],
      ['a hash wrapped in an array', pinOf({ toolsetHash: [HASH] }), "'toolsetHash' must be a lowercase hex sha256"],
      ['tools as an object', pinOf({ tools: { a: entry } }), "'tools' must be an array"],
      ['a tool without a name', pinOf({ tools: [entry, { ...entry, name: 1 }] }), "'tools[1]' must be { name, contractHash, authorityHash }"],
      ['a short contractHash', pinOf({ tools: [{ ...entry, contractHash: 'abc' }] }), "'tools[0]' must be { name, contractHash, authorityHash }"],
      ['a numeric authorityHash on a tool', pinOf({ tools: [{ ...entry, authorityHash: 7 }] }), "'tools[0]' must be { name, contractHash, authorityHash }"],
      ['a tool hash wrapped in an array', pinOf({ tools: [{ ...entry, contractHash: [HASH] }] }), "'tools[0]' must be { name, contractHash, authorityHash }"],
      ['a null tool', pinOf({ tools: [null] }), "'tools[0]' must be { name, contractHash, authorityHash }"],
    ];

    for (const [label, pin, why] of CASES) {
      h.it(`refuses ${label} with config.invalid_value naming the key`, async () => {
        const toolset = await resolved([named('a')]);
        const message = await expectConfigError(h, () => checkToolsetAttestation(toolset, pin as never), 'config.invalid_value');
        h.expect(message).toBe(`'toolsetAttestation' is not a toolset attestation: ${why}`);
      });
    }
  });
}
