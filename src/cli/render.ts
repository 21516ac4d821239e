/**
 * The two views of an inspection: an aligned table for people (lines, which the caller prints
 * through terminal.ts), one JSON document for scripts, escaped as exact JSON. Neither ever
 * sees a header value: an Inspection holds none. Server text reaches only the last column (an
 * admission message), which is not padded, so escaping it on output keeps the rows aligned.
 */
import type { PermissionPreset } from '../node/index.js';
import type { PresetChoice } from './args.js';
import type { Inspection, ToolRow } from './inspect.js';
import { printableJson } from './terminal.js';

export const INSPECT_FORMAT = 'rulvar.inspect/1';

const presetsOf = (choice: PresetChoice): PermissionPreset[] => (choice === 'all' ? ['strict', 'standard', 'open'] : [choice]);

/** The table as lines, to be printed through printableLines. */
export function renderTable(inspection: Inspection, choice: PresetChoice): string[] {
  const presets = presetsOf(choice);
  const header = ['TOOL', 'RISK', 'APPROVAL', ...presets.map((p) => p.toUpperCase()), 'BYTES', 'ADMISSION'];
  const rows = inspection.tools.map((row) => [
    row.name,
    row.risk ?? '(undeclared)',
    row.needsApproval ? 'yes' : 'no',
    ...presets.map((p) => row.verdicts[p] ?? '-'),
    row.schemaBytes === null ? '?' : String(row.schemaBytes),
    admissionText(row),
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((r) => (r[c] ?? '').length)));
  // The last column is free text, so it is not padded (no trailing blanks).
  const line = (cells: readonly string[]): string => cells.map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ');
  const refused = inspection.tools.filter((row) => row.admission.status === 'refused').length;
  const identity =
    inspection.resolved === undefined
      ? [`toolsetHash    (none: ${refused} of ${inspection.tools.length} tools refused admission)`, 'authorityHash  (none)']
      : [`toolsetHash    ${inspection.resolved.toolsetHash}`, `authorityHash  ${inspection.resolved.authorityHash}`];
  return [`source ${inspection.source}: ${inspection.tools.length} tools`, '', line(header), ...rows.map(line), '', ...identity];
}

export function renderJson(inspection: Inspection, choice: PresetChoice): string {
  const document = {
    format: INSPECT_FORMAT,
    source: inspection.source,
    presets: presetsOf(choice),
    tools: inspection.tools,
    toolsetHash: inspection.resolved?.toolsetHash ?? null,
    authorityHash: inspection.resolved?.authorityHash ?? null,
  };
  return printableJson(`${JSON.stringify(document, null, 2)}\n`);
}

function admissionText(row: ToolRow): string {
  return row.admission.status === 'admitted' ? 'admitted' : `refused ${row.admission.code}: ${row.admission.message}`;
}
