/**
 * The preset picker and what the permission chain would decide for each tool under it.
 * `evaluatePermission` is the chain itself run dry: the same layers and reasons a real call
 * meets in `dispatchTool`, with no tool executed. Input is `{}` here, which is exact for these
 * presets (they judge the name and the risk label) and would not be for input-reading hooks.
 */
import { PERMISSION_PRESETS, evaluatePermission, type PermissionPreset, type ResolvedToolset, type ToolDef } from '@rulvar/core';
import { byTestId, cell, el, showPageError, verdictBadge } from './dom.js';

export interface PolicyView {
  /** The preset picked now; a run takes it when it starts and keeps it. */
  preset(): PermissionPreset;
}

async function verdictRow(tool: ToolDef, preset: PermissionPreset): Promise<HTMLTableRowElement> {
  const audit = await evaluatePermission(
    { preset },
    { callId: 'dry-run', toolName: tool.name, input: {}, needsApproval: tool.needsApproval, ...(tool.risk === undefined ? {} : { risk: tool.risk }) },
  );
  return el(
    'tr',
    { 'data-testid': 'policy-row', 'data-tool': tool.name },
    cell('policy-tool', el('code', {}, tool.name)),
    cell('policy-verdict', verdictBadge(audit.verdict, 'verdict')),
    cell('policy-layer', audit.preset === undefined ? audit.layer : `${audit.layer} (${audit.preset})`),
    cell('policy-reason', audit.reason ?? ''),
  );
}

export function mountPolicyView(toolset: ResolvedToolset): PolicyView {
  const select = byTestId<HTMLSelectElement>('preset-select');
  const body = byTestId('policy-body');
  const preset = (): PermissionPreset => {
    if (!(PERMISSION_PRESETS as readonly string[]).includes(select.value)) throw new Error(`unknown preset ${JSON.stringify(select.value)}`);
    return select.value as PermissionPreset;
  };
  // Evaluations are async: a quick second change must not be overwritten by the first one's rows.
  let latest = 0;
  const render = async (): Promise<void> => {
    const mine = ++latest;
    const chosen = preset();
    const rows = await Promise.all(toolset.tools.map((tool) => verdictRow(tool, chosen)));
    if (mine !== latest) return;
    body.replaceChildren(...rows);
    body.dataset['preset'] = chosen;
  };
  select.addEventListener('change', () => void render().catch(showPageError));
  void render().catch(showPageError);
  return { preset };
}
