/**
 * `tool()`: a native ToolDef, held to the same rules as an imported one: the final-name
 * rule, a host-supplied risk label from the known set, and parameters (and outputSchema)
 * admitted into the validator subset right here, so a bad schema fails where it is written.
 */
import { ConfigError } from '../errors.js';
import { admitSchema } from '../schema/admission.js';
import { rememberAdmitted } from '../schema/admitted-tools.js';
import { deepFreeze } from './freeze.js';
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
  const origin = `tool(${typeof spec.name === 'string' ? quoteName(spec.name) : '?'})`;
  if (typeof spec.name !== 'string') throw new ConfigError('tool.invalid_name', `${origin}: 'name' must be a string`);
  assertToolName(spec.name, origin);
  if (typeof spec.description !== 'string') {
    throw new ConfigError('config.invalid_value', `${origin}: 'description' must be a string`);
  }
  if (typeof spec.execute !== 'function') throw new ConfigError('config.invalid_value', `${origin}: 'execute' must be a function`);
  if (spec.risk !== undefined && !TOOL_RISKS.includes(spec.risk)) {
    throw new ConfigError('config.invalid_value', `${origin}: 'risk' must be one of ${TOOL_RISKS.join(', ')}`);
  }
  if (spec.needsApproval !== undefined && typeof spec.needsApproval !== 'boolean') {
    throw new ConfigError('config.invalid_value', `${origin}: 'needsApproval' must be a boolean`);
  }
  if (spec.version !== undefined && typeof spec.version !== 'string') {
    throw new ConfigError('config.invalid_value', `${origin}: 'version' must be a string`);
  }
  const parameters = toJsonSchema(spec.parameters, `${origin}: 'parameters'`);
  const outputSchema = spec.outputSchema === undefined ? undefined : toJsonSchema(spec.outputSchema, `${origin}: 'outputSchema'`);
  // Admit the host's own objects first: a hostile or cyclic schema fails typed here, before
  // cloning (which a 10,000-deep schema would overflow).
  const validators = {
    input: admitSchema(parameters, `${origin} parameters`),
    output: outputSchema === undefined ? undefined : admitSchema(outputSchema, `${origin} outputSchema`),
  };
  const run = spec.execute;
  const def: ToolDef = Object.freeze({
    name: spec.name,
    description: spec.description,
    parameters: deepFreeze(structuredClone(parameters)),
    ...(outputSchema === undefined ? {} : { outputSchema: deepFreeze(structuredClone(outputSchema)) }),
    ...(spec.version === undefined ? {} : { version: spec.version }),
    needsApproval: spec.needsApproval ?? false,
    ...(spec.risk === undefined ? {} : { risk: spec.risk }),
    execute: async (input: unknown, ctx: ToolContext) => run(input as Input, ctx),
  });
  rememberAdmitted(def, validators);
  return def;
}
