/**
 * The compiled validators of every admitted tool, kept beside the ToolDef rather than on it
 * as a public member (ToolDef stays a plain public shape). Admission happens once per
 * ToolDef; dispatching only looks the result up (validators themselves may compile on first
 * use, see admission.ts).
 *
 * A sealed ToolDef (bus/contract-memo.ts: the library's own frozen ToolDef, whose schemas
 * never change) carries its record in a private slot, an own non-enumerable property under
 * a symbol no other module can name, set before it is frozen: no weak map entry per tool
 * (a 10,000-tool toolset made the collector's ephemeron work show in every resolve). The
 * record names the ToolDef it belongs to, so an object that merely inherits from a sealed
 * ToolDef (Object.create) is not taken for it. Any other ToolDef is admitted on first use
 * and remembered by identity.
 */
import type { ToolDef } from '../tools/types.js';
import { quoteName } from '../tools/names.js';
import { admitSchema } from './admission.js';
import type { CompiledSchema } from './validate.js';

export interface AdmittedTool {
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
}

/** What a sealed ToolDef's slot holds: its validators and the ToolDef itself. */
export interface AdmittedRecord extends AdmittedTool {
  readonly tool: ToolDef;
}

export const ADMITTED: unique symbol = Symbol('rulvar: admitted tool');

type Slotted = { readonly [ADMITTED]?: AdmittedRecord };

/** The record in `tool`'s own slot, if it is a sealed ToolDef. */
export function admittedRecord(tool: object): AdmittedRecord | undefined {
  const record = (tool as Slotted)[ADMITTED];
  return record !== undefined && record.tool === tool ? record : undefined;
}

/**
 * Gives `def` (not yet frozen) its slot. `record.tool` must be `def`, and `def` is frozen
 * right after by the caller: the slot is neither writable nor configurable.
 */
export function setAdmittedRecord(def: object, record: AdmittedRecord): void {
  Object.defineProperty(def, ADMITTED, { value: record });
}

const admitted = new WeakMap<ToolDef, AdmittedTool>();

/** Admits a tool's schemas (throws `schema.unsupported`) and remembers its validators. */
export function admitTool(tool: ToolDef, origin: string): AdmittedTool {
  // Every dispatch looks its tool up here: the known entry, with nothing allocated around it.
  const known = admittedRecord(tool) ?? admitted.get(tool);
  if (known !== undefined) return known;
  const where = `${origin}: tool ${quoteName(tool.name)}`;
  const entry: AdmittedTool = {
    input: admitSchema(tool.parameters, `${where} parameters`),
    output: tool.outputSchema === undefined ? undefined : admitSchema(tool.outputSchema, `${where} outputSchema`),
  };
  admitted.set(tool, entry);
  return entry;
}
