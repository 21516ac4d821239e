/**
 * The compiled validators of every admitted tool, kept beside the ToolDef rather than on it
 * (ToolDef stays a plain public shape). Admission happens once per ToolDef; dispatching only
 * looks the result up (validators themselves may compile on first use, see admission.ts).
 */
import type { ToolDef } from '../tools/types.js';
import { quoteName } from '../tools/names.js';
import { admitSchemaForm } from './admission.js';
import type { CompiledSchema } from './validate.js';
import type { SchemaObject } from './walk.js';

export interface AdmittedTool {
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
}

/**
 * What admitting a tool just now made of its schemas: for each, the canonical-order private
 * copy when it had one (admission.ts). Only a fresh admission hands these out: they show the
 * schema as it was when admitted, which is the schema as it is only in the same synchronous
 * stretch (resolveToolset hashes right after admitting).
 */
export interface FreshForms {
  readonly parameters: SchemaObject | undefined;
  readonly outputSchema: SchemaObject | undefined;
}

const admitted = new WeakMap<ToolDef, AdmittedTool>();

/** Admits a tool's schemas (throws `schema.unsupported`) and remembers its validators. */
export function admitTool(tool: ToolDef, origin: string): AdmittedTool {
  // Every dispatch looks its tool up here: the known entry, with nothing allocated around it.
  return admitted.get(tool) ?? admitToolFresh(tool, origin).admitted;
}

/** As admitTool, also giving the fresh forms; `forms` is undefined when the tool was admitted before. */
export function admitToolFresh(tool: ToolDef, origin: string): { readonly admitted: AdmittedTool; readonly forms: FreshForms | undefined } {
  const known = admitted.get(tool);
  if (known !== undefined) return { admitted: known, forms: undefined };
  const where = () => `${origin}: tool ${quoteName(tool.name)}`;
  const input = admitSchemaForm(tool.parameters, () => `${where()} parameters`);
  const output = tool.outputSchema === undefined ? undefined : admitSchemaForm(tool.outputSchema, () => `${where()} outputSchema`);
  const entry: AdmittedTool = { input: input.validator, output: output?.validator };
  admitted.set(tool, entry);
  return { admitted: entry, forms: { parameters: input.form, outputSchema: output?.form } };
}

/** Records validators compiled before the ToolDef existed (tool() checks the host's schema first). */
export function rememberAdmitted(tool: ToolDef, entry: AdmittedTool): void {
  admitted.set(tool, entry);
}
