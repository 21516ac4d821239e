/**
 * The bytes toolset identity is made of (spec/runtime.md, "Resolving a toolset"): one tool's
 * contract tuple `{ name, description, parameters, outputSchema?, version? }` and authority
 * tuple `{ name, needsApproval, risk? }`, each as RFC 8785 canonical JSON. A toolset's hash
 * is the SHA-256 of `[` + these texts sorted by name, joined by `,` + `]`, which is exactly
 * the canonical JSON of the array of tuples (toolset-hash.ts): so a text made once per tool
 * (contract-memo.ts) serves every toolset the tool is in.
 *
 * Absent fields are omitted, never `null`, so an MCP tool (which has no `version`) hashes the
 * same as a native tool without one.
 */
import { canonicalForm, canonicalJson, NO_FORM, stringifyIsCanonical } from '../tools/canonical-json.js';
import type { ToolDef } from '../tools/types.js';

/** What `toolsetHash` reads from a tool; any ToolDef qualifies. */
export type ToolContract = Pick<ToolDef, 'name' | 'description' | 'parameters' | 'outputSchema' | 'version'>;

/** What `authorityHash` reads from a tool; any ToolDef qualifies. */
export type ToolAuthority = Pick<ToolDef, 'name' | 'needsApproval' | 'risk'>;

/**
 * The contract tuple of one tool, each field read once. An absent field stays `undefined`
 * here, and canonical JSON omits such a member, which is what makes it absent from the
 * hashed bytes (never `null`).
 */
export function contractTuple(tool: ToolContract): Record<string, unknown> {
  const { name, description, parameters, outputSchema, version } = tool;
  return { name, description, parameters, outputSchema, version };
}

/** The authority tuple of one tool; an absent `risk` is omitted as in contractTuple. */
export function authorityTuple(tool: ToolAuthority): Record<string, unknown> {
  const { name, needsApproval, risk } = tool;
  return { name, needsApproval, risk };
}

/** Canonical-order copies of a tool's schemas that admission made (sorted-copy.ts), when it made them. */
export interface SchemaForms {
  readonly parameters: object | undefined;
  readonly outputSchema: object | undefined;
}

/**
 * The canonical JSON of a contract tuple. `forms`, when given, hold admission's
 * canonical-order copies of exactly these schemas, which JSON.stringify writes as they are
 * instead of their being copied again; everything else is copied as canonicalJson would,
 * and what has no fast form takes canonicalJson's iterative walk.
 */
export function contractTupleText(tuple: Record<string, unknown>, forms?: SchemaForms): string {
  if (!stringifyIsCanonical()) return canonicalJson(tuple);
  const form = contractForm(tuple, forms);
  return form === NO_FORM ? canonicalJson(tuple) : JSON.stringify(form);
}

/**
 * The canonical JSON of an authority tuple. The usual one (a string name, a boolean, a string
 * risk or none) is a literal with its members already in code-unit order (name <
 * needsApproval < risk) that JSON.stringify writes as it is: its escaping of strings is the
 * RFC's (section 3.2.2.2). This is made for every tool of every fresh toolset, where
 * canonicalJson's walk per tuple cost a tenth of a cold resolve. Anything else takes
 * canonicalJson, which refuses what is not JSON.
 */
export function authorityTupleText(tuple: Record<string, unknown>): string {
  const { name, needsApproval, risk } = tuple;
  const usual = typeof name === 'string' && typeof needsApproval === 'boolean' && (risk === undefined || typeof risk === 'string');
  if (!usual || !stringifyIsCanonical()) return canonicalJson(tuple);
  return JSON.stringify(risk === undefined ? { name, needsApproval } : { name, needsApproval, risk });
}

/** One contract tuple as a canonical form: members in code-unit order, absent ones left out. */
function contractForm(tuple: Record<string, unknown>, forms: SchemaForms | undefined): unknown {
  const { name, description, parameters, outputSchema, version } = tuple;
  if (typeof name !== 'string' || typeof description !== 'string' || (version !== undefined && typeof version !== 'string')) return NO_FORM;
  const input = forms?.parameters ?? canonicalForm(parameters);
  const output = outputSchema === undefined ? undefined : (forms?.outputSchema ?? canonicalForm(outputSchema));
  if (input === NO_FORM || output === NO_FORM || input === undefined) return NO_FORM;
  // Written in this order: description < name < outputSchema < parameters < version.
  const form: Record<string, unknown> = { description, name };
  if (output !== undefined) form['outputSchema'] = output;
  form['parameters'] = input;
  if (version !== undefined) form['version'] = version;
  return form;
}
