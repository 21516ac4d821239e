/**
 * The audit trail of a run, read back from its journal rather than collected from events:
 * the journal is what a resume, another tab or a server would see, and it holds every
 * evaluation, replayed or not. One row per call the chain judged: the verdict and the layer
 * that gave it, and for an ask, how it was resolved (or that it still waits).
 */
import type { JournalEntry, JournalStore, PermissionAudit, ToolResult } from '@rulvar/core';
import { byTestId, cell, el, verdictBadge } from './dom.js';

type Entry<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

interface Row {
  turn: number;
  toolName: string;
  audit: PermissionAudit;
  approvalKey?: string;
  result?: ToolResult;
}

/** Calls in journal order; an asked call's approval entry and its later result share one row. */
function rowsOf(entries: readonly JournalEntry[]): Row[] {
  const rows = new Map<string, Row>();
  const at = (e: Entry<'approval'> | Entry<'tool'>) => `${e.agent}/${e.turn}/${e.index}`;
  for (const e of entries) {
    if (e.type === 'approval') rows.set(at(e), { turn: e.turn, toolName: e.toolName, audit: e.audit, approvalKey: e.key });
    if (e.type !== 'tool') continue;
    const asked = rows.get(at(e));
    if (asked === undefined) rows.set(at(e), { turn: e.turn, toolName: e.result.toolName, audit: e.audit, result: e.result });
    else asked.result = e.result;
  }
  return [...rows.values()];
}

function resolutionText(row: Row, resolutions: ReadonlyMap<string, Entry<'resolution'>>): string {
  if (row.approvalKey === undefined) return '—';
  const resolution = resolutions.get(row.approvalKey);
  if (resolution === undefined) return 'pending';
  return `${resolution.decision} by ${resolution.by}${resolution.reason === undefined ? '' : `: ${resolution.reason}`}`;
}

function resultText(result: ToolResult | undefined): string {
  if (result === undefined) return '';
  const text = typeof result.output !== 'string' ? JSON.stringify(result.output) : result.output === '' ? '(empty)' : result.output;
  return `${result.isError ? `error (${result.reason ?? 'unknown'}): ` : ''}${text}`;
}

export async function showAuditTrail(journal: JournalStore, runId: string): Promise<void> {
  const entries = await journal.load(runId);
  const resolutions = new Map(entries.flatMap((e) => (e.type === 'resolution' ? [[e.key, e] as const] : [])));
  const final = entries.find((e) => e.type === 'run:end');
  byTestId('audit-body').replaceChildren(
    ...rowsOf(entries).map((row) =>
      el(
        'tr',
        { 'data-testid': 'audit-row', 'data-tool': row.toolName },
        // For people, from 1 (the terminal demo counts the same way); the journal's field counts from 0.
        cell('audit-turn', String(row.turn + 1)),
        cell('audit-tool', el('code', {}, row.toolName)),
        cell('audit-verdict', verdictBadge(row.audit.verdict, 'verdict')),
        cell('audit-layer', row.audit.preset === undefined ? row.audit.layer : `${row.audit.layer} (${row.audit.preset})`),
        cell('audit-reason', row.audit.reason ?? ''),
        cell('audit-resolution', resolutionText(row, resolutions)),
        cell('audit-result', resultText(row.result)),
      ),
    ),
  );
  byTestId('final-answer').textContent = final === undefined ? '—' : String(final.value);
}
