/**
 * `tool()`: a native ToolDef, held to the same rules as an imported one: the final-name
 * rule, a host-supplied risk label from the known set, and parameters (and outputSchema)
 * admitted into the validator subset right here, so a bad schema fails where it is written.
 * The ToolDef is sealed (contract-memo.ts): its schemas are frozen copies, read once, that
 * validation, its texts and a model all see, so resolving it never copies or admits again.
 */
import { ConfigError } from '../errors.js';
import { freezeSealed, sealAndAdmit } from './contract-memo.js';
import { assertToolName, quoteName } from '../tools/names.js';
import { toJsonSchema, type SchemaSpec } from '../schema/schema-spec.js';
import { TOOL_RISKS, type ToolContext, type ToolDef, type ToolRisk } from '../tools/types.js';

export interface NativeToolSpec<Input = unknown, Output = unknown> {
  readonly name: string;
  readonly description: string;
  /** The input: bare JSON Schema (draft 2020-12 subset), a zod schema, or a Standard Schema. */
  readonly parameters: SchemaSpec;
  readonly outputSchema?: SchemaSpec;
  readonly version?: string;
  readonly needsApproval?: boolean;
  readonly risk?: ToolRisk;
  /** Receives input that already passed `parameters`; throwing yields an error result. */
  execute(input: Input, ctx: ToolContext): Output | Promise<Output>;
}

export function tool<Input = unknown, Output = unknown>(spec: NativeToolSpec<Input, Output>): ToolDef {
  if (typeof spec !== 'object' || spec === null) throw new ConfigError('config.invalid_value', 'tool(): the spec must be an object');
  // Each field read once: what is checked is what the ToolDef holds.
  const { name, description, version, needsApproval, risk, execute: run } = spec;
  const origin = `tool(${typeof name === 'string' ? quoteName(name) : '?'})`;
  if (typeof name !== 'string') throw new ConfigError('tool.invalid_name', `${origin}: 'name' must be a string`);
  assertToolName(name, origin);
  if (typeof description !== 'string') {
    throw new ConfigError('config.invalid_value', `${origin}: 'description' must be a string`);
  }
  if (typeof run !== 'function') throw new ConfigError('config.invalid_value', `${origin}: 'execute' must be a function`);
  if (risk !== undefined && !TOOL_RISKS.includes(risk)) {
    throw new ConfigError('config.invalid_value', `${origin}: 'risk' must be one of ${TOOL_RISKS.join(', ')}`);
  }
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean') {
    throw new ConfigError('config.invalid_value', `${origin}: 'needsApproval' must be a boolean`);
  }
  if (version !== undefined && typeof version !== 'string') {
    throw new ConfigError('config.invalid_value', `${origin}: 'version' must be a string`);
  }
  const outputSpec = spec.outputSchema;
  const input = sealAndAdmit(toJsonSchema(spec.parameters, `${origin}: 'parameters'`), () => `${origin} parameters`);
  const output = outputSpec === undefined ? undefined : sealAndAdmit(toJsonSchema(outputSpec, `${origin}: 'outputSchema'`), () => `${origin} outputSchema`);
  const def: ToolDef = {
    name,
    description,
    parameters: input.schema,
    ...(output === undefined ? {} : { outputSchema: output.schema }),
    ...(version === undefined ? {} : { version }),
    needsApproval: needsApproval ?? false,
    ...(risk === undefined ? {} : { risk }),
    execute: async (value: unknown, ctx: ToolContext) => run(value as Input, ctx),
  };
  freezeSealed(def, { input: input.admitted.validator, output: output?.admitted.validator }, { parameters: input.admitted.form, outputSchema: output?.admitted.form });
  return def;
}
