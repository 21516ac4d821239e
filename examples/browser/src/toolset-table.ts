/**
 * The imported toolset as the library sees it: each tool's final (prefixed) name, the risk
 * label the host gave it, whether it needs approval, and the toolset's content hash. The hash
 * covers the contracts (names, descriptions, schemas); an agent journals it at spawn, so a
 * server that changes a tool starts a fresh agent instead of replaying against a new contract.
 */
import type { ResolvedToolset } from '@rulvar/core';
import { byTestId, cell, el } from './dom.js';

export function renderToolset(toolset: ResolvedToolset): void {
  byTestId('toolset-hash').textContent = toolset.toolsetHash;
  byTestId('toolset-body').replaceChildren(
    ...toolset.tools.map((tool) =>
      el(
        'tr',
        { 'data-testid': 'toolset-row', 'data-tool': tool.name },
        cell('tool-name', el('code', {}, tool.name)),
        cell('tool-risk', tool.risk ?? '(undeclared)'),
        cell('tool-approval', tool.needsApproval ? 'yes' : 'no'),
        cell('tool-description', tool.description),
      ),
    ),
  );
}
