/**
 * Toolset identity in every runtime: toolsetHash and authorityHash against committed
 * vectors (computed once by an independent implementation, see the fixture's "about"),
 * drift of each field changing exactly the hash it should, and attestations naming what
 * changed.
 */
import vectors from '../fixtures/hash-vectors.json' with { type: 'json' };
import type { ToolAuthority, ToolContract } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { caught, expectConfigError } from './helpers.js';

type VectorTool = ToolContract & ToolAuthority;
interface ToolsetVector {
  readonly label: string;
  readonly variantOf?: string;
  readonly contractOf?: string;
  readonly tools: readonly VectorTool[];
  readonly toolsetHash: string;
  readonly authorityHash: string;
}
const data = vectors as unknown as { readonly toolsets: readonly ToolsetVector[] };

const base: VectorTool = {
  name: 'gh_create_comment',
  description: 'Comment on an issue.',
  parameters: { type: 'object', properties: { body: { type: 'string' } }, required: ['body'] },
  needsApproval: true,
  risk: 'write',
};
const other: VectorTool = { name: 'fs_read', description: 'Read a file.', parameters: true, needsApproval: false };

/** Each drift, and which of the two hashes it must move. */
const DRIFTS: ReadonlyArray<readonly [string, VectorTool, boolean, boolean]> = [
  ['description', { ...base, description: 'Comment on an issue or a pull request.' }, true, false],
  ['parameters', { ...base, parameters: { type: 'object', properties: { body: { type: 'string', maxLength: 10 } } } }, true, false],
  ['outputSchema added', { ...base, outputSchema: { type: 'object' } }, true, false],
  ['version added', { ...base, version: '2' }, true, false],
  ['risk loosened', { ...base, risk: 'read' }, false, true],
  ['risk removed', { name: base.name, description: base.description, parameters: base.parameters, needsApproval: true }, false, true],
  ['approval dropped', { ...base, needsApproval: false }, false, true],
  ['name', { ...base, name: 'gh_comment' }, true, true],
];

export function hashSuite(h: SuiteHarness): void {
  const { toolsetHash, authorityHash, attestToolset, checkToolsetAttestation } = h.lib;
  const resolved = async (tools: readonly VectorTool[]) => ({
    tools,
    toolsetHash: await toolsetHash(tools),
    authorityHash: await authorityHash(tools),
  });

  h.describe('toolset hashes: committed vectors', () => {
    for (const vector of data.toolsets) {
      h.it(`toolsetHash reproduces: ${vector.label}`, async () => {
        h.expect(await toolsetHash(vector.tools)).toBe(vector.toolsetHash);
      });
      h.it(`authorityHash reproduces: ${vector.label}`, async () => {
        h.expect(await authorityHash(vector.tools)).toBe(vector.authorityHash);
      });
    }

    h.it('key-order and spelling variants carry the same expected hashes', () => {
      const byLabel = new Map(data.toolsets.map((v) => [v.label, v]));
      const variants = data.toolsets.filter((v) => v.variantOf !== undefined);
      h.expect(variants.length).toBeGreaterThanOrEqual(3);
      for (const v of variants) {
        const original = byLabel.get(v.variantOf ?? '');
        h.expect([v.toolsetHash, v.authorityHash]).toEqual([original?.toolsetHash, original?.authorityHash]);
      }
      const policyOnly = data.toolsets.find((v) => v.contractOf !== undefined);
      const original = byLabel.get(policyOnly?.contractOf ?? '');
      h.expect(policyOnly?.toolsetHash).toBe(original?.toolsetHash);
      h.expect(policyOnly?.authorityHash).not.toBe(original?.authorityHash);
    });

    h.it('does not depend on the order tools are listed in', async () => {
      const tools = data.toolsets.find((v) => v.tools.length >= 3)?.tools ?? [];
      h.expect(await toolsetHash([...tools].reverse())).toBe(await toolsetHash(tools));
      h.expect(await authorityHash([...tools].reverse())).toBe(await authorityHash(tools));
    });
  });

  h.describe('toolset hashes: drift', () => {
    for (const [what, drifted, contract, authority] of DRIFTS) {
      h.it(`${what} changes ${[contract && 'toolsetHash', authority && 'authorityHash'].filter(Boolean).join(' and ')} only`, async () => {
        const before = await resolved([base, other]);
        const after = await resolved([drifted, other]);
        h.expect(after.toolsetHash !== before.toolsetHash).toBe(contract);
        h.expect(after.authorityHash !== before.authorityHash).toBe(authority);
      });
    }

    h.it('hashes an absent optional field and an undefined one alike (an MCP tool has no version)', async () => {
      const explicit = { ...base, version: undefined, outputSchema: undefined } as unknown as VectorTool;
      h.expect(await toolsetHash([explicit])).toBe(await toolsetHash([base]));
    });

    h.it('reads only the tuple fields, so execute and extra properties do not matter', async () => {
      const def = { ...base, execute: async () => 'x', extra: { anything: true } };
      h.expect(await toolsetHash([def])).toBe(await toolsetHash([base]));
      h.expect(await authorityHash([def])).toBe(await authorityHash([base]));
    });

    h.it('is lowercase hex sha256', async () => {
      h.expect(await toolsetHash([base])).toMatch(/^[0-9a-f]{64}$/);
    });

    h.it('refuses two tools with one name (tool.duplicate_name)', async () => {
      const message = await expectConfigError(h, () => toolsetHash([base, { ...base, description: 'x' }]), 'tool.duplicate_name');
      h.expect(message).toContain('gh_create_comment');
    });
  });

  h.describe('toolset attestation', () => {
    h.it('a toolset matches its own attestation, also after a JSON round trip', async () => {
      const toolset = await resolved([base, other]);
      const pin = await attestToolset(toolset);
      await h.expect(checkToolsetAttestation(toolset, pin)).resolves.toBeUndefined();
      const reordered = await resolved([other, base]);
      await h.expect(checkToolsetAttestation(reordered, JSON.parse(JSON.stringify(pin)))).resolves.toBeUndefined();
    });

    h.it('is plain JSON holding both hashes and one entry per tool, sorted by name', async () => {
      const toolset = await resolved([base, other]);
      const pin = await attestToolset(toolset);
      h.expect(JSON.parse(JSON.stringify(pin))).toEqual(pin);
      h.expect([pin.toolsetHash, pin.authorityHash]).toEqual([toolset.toolsetHash, toolset.authorityHash]);
      h.expect(pin.tools.map((t) => t.name)).toEqual(['fs_read', 'gh_create_comment']);
    });

    h.it('a mismatch names changed, missing and unexpected tools', async () => {
      const third: VectorTool = { name: 'gh_get_issue', description: 'Fetch.', parameters: true, needsApproval: false };
      const pin = await attestToolset(await resolved([base, other, third]));
      const drifted = { ...base, description: 'Changed.', risk: 'read' as const };
      const added: VectorTool = { name: 'gh_delete_repo', description: 'Gone.', parameters: true, needsApproval: false };
      const error = await caught(async () => checkToolsetAttestation(await resolved([drifted, third, added]), pin));
      h.expect(h.lib.ConfigError.is(error)).toBe(true);
      h.expect(error).toBeInstanceOf(h.lib.ToolsetAttestationError);
      const e = error as InstanceType<typeof h.lib.ToolsetAttestationError>;
      h.expect(e.code).toBe('toolset.attestation_mismatch');
      h.expect(e.changed).toEqual([{ name: 'gh_create_comment', contract: true, authority: true }]);
      h.expect(e.missing).toEqual(['fs_read']);
      h.expect(e.unexpected).toEqual(['gh_delete_repo']);
      h.expect(e.message).toContain('changed: "gh_create_comment" (contract, authority)');
      h.expect(e.message).toContain('missing: "fs_read"');
      h.expect(e.message).toContain('unexpected: "gh_delete_repo"');
    });

    h.it('an approval flag dropped is a change of authority alone', async () => {
      const pin = await attestToolset(await resolved([base, other]));
      const error = await caught(async () => checkToolsetAttestation(await resolved([{ ...base, needsApproval: false }, other]), pin));
      h.expect((error as { changed: unknown }).changed).toEqual([{ name: 'gh_create_comment', contract: false, authority: true }]);
      h.expect((error as Error).message).toContain('(authority)');
    });

    h.it('refuses a malformed attestation with config.invalid_value', async () => {
      const toolset = await resolved([base]);
      const pin = await attestToolset(toolset);
      for (const bad of [null, {}, { ...pin, format: 'v0' }, { ...pin, toolsetHash: 'ABC' }, { ...pin, tools: [{ name: 'x' }] }]) {
        await expectConfigError(h, () => checkToolsetAttestation(toolset, bad as never), 'config.invalid_value');
      }
    });
  });
}
