/**
 * The compiled validators of every admitted tool, kept beside the ToolDef rather than on it
 * (ToolDef stays a plain public shape). Compiling happens once, when a tool is admitted;
 * dispatching only looks the result up.
 */
import type { ToolDef } from '../tools/types.js';
import { quoteName } from '../tools/names.js';
import { admitSchema } from './admission.js';
import type { CompiledSchema } from './validate.js';

export interface AdmittedTool {
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
}

const admitted = new WeakMap<ToolDef, AdmittedTool>();

/** Admits a tool's schemas (throws `schema.unsupported`) and remembers its validators. */
export function admitTool(tool: ToolDef, origin: string): AdmittedTool {
  const known = admitted.get(tool);
  if (known !== undefined) return known;
  const where = `${origin}: tool ${quoteName(tool.name)}`;
  const entry: AdmittedTool = {
    input: admitSchema(tool.parameters, `${where} parameters`),
    output: tool.outputSchema === undefined ? undefined : admitSchema(tool.outputSchema, `${where} outputSchema`),
  };
  admitted.set(tool, entry);
  return entry;
}

/** Records validators compiled before the ToolDef existed (tool() checks the host's schema first). */
export function rememberAdmitted(tool: ToolDef, entry: AdmittedTool): void {
  admitted.set(tool, entry);
}
