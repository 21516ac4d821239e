/**
 * The contract memo: what a sealed ToolDef determines, made once per ToolDef identity (its
 * contract and authority texts, its admitted validators), so that a spawn resolving the same
 * tools again does no admission and no canonicalisation: lookups, and unless the toolset is
 * one resolved lately (toolset-hash.ts), a sort and the digests of the joined texts.
 *
 * A sealed ToolDef is one this library made and froze: `tool()`'s, or the copy resolving
 * makes of any other ToolDef (an imported one, a host's own object). It holds data
 * properties only, and its schemas are sealed (sealed-schema.ts: deep-frozen copies with
 * data properties only). Nothing about it can change, so a text computed from it once is its
 * text forever: that is what makes a memo keyed by identity sound. Its record (texts and
 * validators) sits in its own private slot (schema/admitted-tools.ts), set before it is
 * frozen. A ToolDef whose contract changed is a different object (a new `tool()`, the
 * ToolDefs of a list swept again after list_changed) and has a record of its own.
 *
 * Any other ToolDef is read once (every contract and policy field) and copied: its schemas
 * into sealed schemas, then admitted from the copy, so the copy a model is shown, the
 * validators and the texts all come from one read, however the original's objects change
 * later or whatever its getters return. The copy is remembered by the original, and reused
 * while the original's fields are the same values; a reassigned field makes a new copy. A
 * change made inside an original's schema objects after that is not seen, as a server's
 * change is not seen before its list_changed: a resolved toolset shows, validates and hashes
 * the copy it holds, never the original.
 */
import { ConfigError } from '../errors.js';
import { admitSchemaForm, type AdmittedSchema } from '../schema/admission.js';
import { admittedRecord, setAdmittedRecord, type AdmittedRecord, type AdmittedTool } from '../schema/admitted-tools.js';
import { assertToolName, quoteName } from '../tools/names.js';
import type { JsonSchema, ToolContext, ToolDef } from '../tools/types.js';
import { authorityTuple, authorityTupleText, contractTuple, contractTupleText, type SchemaForms } from './contract-text.js';
import { sealSchema } from './sealed-schema.js';

/** A sealed ToolDef's record: its validators and its texts. */
export interface SealedTool extends AdmittedRecord {
  /** Unique to this record, never reused: a toolset of the same records is the same texts (toolset-hash.ts). */
  readonly serial: number;
  /** The canonical JSON of its contract tuple (contract-text.ts). */
  readonly contract: string;
  /** The canonical JSON of its authority tuple. */
  readonly authority: string;
}

/** The fields of a ToolDef as read once. */
type Fields = { -readonly [K in keyof Required<ToolDef>]: ToolDef[K] | undefined } & { name: string };

/** Copies of other ToolDefs, by the original, with the original's fields as read when the copy was made. */
const copies = new WeakMap<ToolDef, { readonly read: Fields; readonly copy: SealedTool }>();

const FIELDS = ['name', 'description', 'parameters', 'outputSchema', 'version', 'needsApproval', 'risk', 'execute'] as const;

/** How many records were made: the last serial handed out. */
let serials = 0;

/** The record of a sealed ToolDef; undefined for any other value. */
export function sealedEntry(tool: unknown): SealedTool | undefined {
  return typeof tool === 'object' && tool !== null ? (admittedRecord(tool) as SealedTool | undefined) : undefined;
}

/**
 * Freezes `def`, a ToolDef the caller built from sealed schemas (not yet frozen), with its
 * record: `validators` admitted from those very schemas, `forms` admission's canonical-order
 * copies of them, for its text.
 */
export function freezeSealed(def: ToolDef, validators: AdmittedTool, forms: SchemaForms): SealedTool {
  serials += 1;
  const record: SealedTool = Object.freeze({
    serial: serials,
    tool: def,
    input: validators.input,
    output: validators.output,
    contract: contractTupleText(contractTuple(def), forms),
    authority: authorityTupleText(authorityTuple(def)),
  });
  setAdmittedRecord(def, record);
  Object.freeze(def);
  return record;
}

/**
 * The sealed form of `tool` for a toolset: its own record for a sealed ToolDef, else the copy
 * made before from the same field values, else a new copy. Refuses a bad name
 * (`tool.invalid_name`) before any schema is read, and a schema outside the validator's
 * subset (`schema.unsupported`); `origin` names where the tool came from.
 */
export function sealTool(tool: ToolDef, origin: string): SealedTool {
  const own = admittedRecord(tool);
  if (own !== undefined) return own as SealedTool;
  const read = readFields(tool, origin);
  const before = copies.get(tool);
  if (before !== undefined && FIELDS.every((field) => before.read[field] === read[field])) return before.copy;
  assertToolName(read.name, origin);
  const where = () => `${origin}: tool ${quoteName(read.name)}`;
  const input = sealAndAdmit(read.parameters, () => `${where()} parameters`);
  const output = read.outputSchema === undefined ? undefined : sealAndAdmit(read.outputSchema, () => `${where()} outputSchema`);
  const copy = freezeSealed(
    copyOf(tool, read, input.schema, output?.schema),
    { input: input.admitted.validator, output: output?.admitted.validator },
    { parameters: input.admitted.form, outputSchema: output?.admitted.form },
  );
  copies.set(tool, { read, copy });
  return copy;
}

/** Every field, each read once: everything after this works on these values. */
function readFields(tool: ToolDef, origin: string): Fields {
  const { name, description, parameters, outputSchema, version, needsApproval, risk, execute } = tool;
  if (typeof name !== 'string' || typeof execute !== 'function') {
    throw new ConfigError('config.invalid_value', `${origin} produced something that is not a ToolDef`);
  }
  return { name, description, parameters, outputSchema, version, needsApproval, risk, execute };
}

/** A schema's sealed copy, admitted; a schema that cannot be copied is one admission refuses. */
export function sealAndAdmit(schema: unknown, where: () => string): { readonly schema: JsonSchema; readonly admitted: AdmittedSchema } {
  const copy = sealSchema(schema);
  if (copy === undefined) {
    admitSchemaForm(schema, where);
    throw new Error('internal: admission took a schema that sealSchema gave up on');
  }
  return { schema: copy, admitted: admitSchemaForm(copy, where) };
}

/**
 * The ToolDef (not yet frozen) a toolset holds for `original`. Its execute calls the
 * original's with the original as `this`, so a ToolDef written as a class keeps working.
 */
function copyOf(original: ToolDef, read: Fields, parameters: JsonSchema, outputSchema: JsonSchema | undefined): ToolDef {
  const run = read.execute as ToolDef['execute'];
  // Members in the order tool() writes them, one at a time: no spread, which V8 builds slowly.
  const def: Record<string, unknown> = { name: read.name, description: read.description, parameters };
  if (outputSchema !== undefined) def['outputSchema'] = outputSchema;
  if (read.version !== undefined) def['version'] = read.version;
  def['needsApproval'] = read.needsApproval;
  if (read.risk !== undefined) def['risk'] = read.risk;
  def['execute'] = (input: unknown, ctx: ToolContext) => run.call(original, input, ctx);
  return def as unknown as ToolDef;
}
