/**
 * One inspection: connect, sweep, then judge every tool on its own (admission, schema size,
 * preset verdicts) so that a single bad tool becomes a refused row instead of hiding the
 * rest. The toolset hashes come from resolveToolset over the whole list, exactly as a host
 * importing this server would compute them, and only when every tool was admitted.
 */
import {
  evaluatePermission,
  resolveToolset,
  RulvarError,
  type PermissionPreset,
  type ResolvedToolset,
  type ToolDef,
  type ToolRisk,
  type Verdict,
} from '../node/index.js';
import type { InspectOptions } from './args.js';
import { CliExit, EXIT } from './exit.js';
import { startProgress } from './progress.js';
import { openSource } from './source.js';

export type Admission = { readonly status: 'admitted' } | { readonly status: 'refused'; readonly code: string; readonly message: string };

export interface ToolRow {
  readonly name: string;
  readonly risk: ToolRisk | null;
  readonly needsApproval: boolean;
  readonly verdicts: Partial<Record<PermissionPreset, Verdict>>;
  /** UTF-8 bytes of the serialized input plus output schema; null when it cannot be serialized. */
  readonly schemaBytes: number | null;
  readonly admission: Admission;
}

export interface Inspection {
  readonly source: string;
  readonly tools: readonly ToolRow[];
  /** Absent when a tool was refused: such a toolset cannot be resolved, so it has no identity. */
  readonly resolved: ResolvedToolset | undefined;
}

export async function inspect(options: InspectOptions): Promise<Inspection> {
  const source = await openSource(options);
  const stop = startProgress(process.stderr, `sweeping ${source.id}`);
  try {
    const tools = await source.tools().catch((error: unknown) => {
      throw RulvarError.is(error) ? new CliExit(EXIT.source, `${error.code}: ${error.message}${flagHint(error.code)}`) : error;
    });
    stop();
    const presets: PermissionPreset[] = options.preset === 'all' ? ['strict', 'standard', 'open'] : [options.preset];
    const rows = await Promise.all(tools.map((tool) => judge(tool, presets, options.bounds.maxSchemaBytes)));
    const allAdmitted = rows.every((row) => row.admission.status === 'admitted');
    return { source: source.id, tools: rows, resolved: allAdmitted ? await resolveToolset(tools) : undefined };
  } finally {
    stop();
    await source.close();
  }
}

/** The flag that sets the bound a refusal names, so the message says what to raise. */
const BOUND_FLAG: Readonly<Record<string, string>> = {
  'connect.timeout': '--connect-ms',
  'discovery.page_timeout': '--list-ms',
  'discovery.deadline': '--timeout-ms',
  'discovery.max_tools': '--max-tools',
  'discovery.max_pages': '--max-pages',
};

function flagHint(code: string): string {
  return Object.hasOwn(BOUND_FLAG, code) ? ` (raise ${BOUND_FLAG[code]})` : '';
}

async function judge(tool: ToolDef, presets: readonly PermissionPreset[], maxSchemaBytes: number): Promise<ToolRow> {
  const verdicts: Partial<Record<PermissionPreset, Verdict>> = {};
  for (const preset of presets) {
    const audit = await evaluatePermission(
      { preset },
      { callId: 'rulvar-mcp-inspect', toolName: tool.name, input: {}, needsApproval: tool.needsApproval, ...(tool.risk === undefined ? {} : { risk: tool.risk }) },
    );
    verdicts[preset] = audit.verdict;
  }
  const schemaBytes = measure(tool);
  return { name: tool.name, risk: tool.risk ?? null, needsApproval: tool.needsApproval, verdicts, schemaBytes, admission: await admit(tool, schemaBytes, maxSchemaBytes) };
}

/** Admission through the public path: a one-tool toolset is admitted exactly as in a larger one. */
async function admit(tool: ToolDef, schemaBytes: number | null, maxSchemaBytes: number): Promise<Admission> {
  try {
    await resolveToolset([tool]);
  } catch (error) {
    if (!RulvarError.is(error)) throw error;
    return { status: 'refused', code: error.code, message: error.message };
  }
  if (schemaBytes !== null && schemaBytes > maxSchemaBytes) {
    return { status: 'refused', code: 'schema.too_large', message: `${schemaBytes} bytes of schema, past --max-schema-bytes ${maxSchemaBytes}` };
  }
  return { status: 'admitted' };
}

function measure(tool: ToolDef): number | null {
  try {
    const text = JSON.stringify(tool.parameters) + (tool.outputSchema === undefined ? '' : JSON.stringify(tool.outputSchema));
    return Buffer.byteLength(text, 'utf8');
  } catch {
    // Too deep to serialize (RangeError): admission has refused such a schema already.
    return null;
  }
}
