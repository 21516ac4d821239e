/**
 * "Run agent" and the approvals a suspended run waits on. A run keeps the preset picked when
 * it started. When the chain asks, the run settles `suspended`; each pending call gets Approve
 * and Deny (with an optional reason, which the model reads on a deny). A decision is journaled
 * with `resolveExternal` and the run resumed from the journal, as a webhook or another process
 * would do it: the turns already journaled are replayed, not requested from the model again.
 */
import { createEngine, memoryJournal, type ApprovalDecision, type Engine, type McpToolSource, type PendingApproval, type RunHandle } from '@rulvar/core';
import { groceriesWorkflow, notesModel } from './agent.js';
import { showAuditTrail } from './audit-trail.js';
import { byTestId, el, showPageError } from './dom.js';
import type { PolicyView } from './policy-view.js';

type Decide = (decision: 'allow' | 'deny', reason: string) => void;

function approvalItem(approval: PendingApproval, index: number, decide: Decide): HTMLLIElement {
  const describedBy = `approval-${index}`;
  const reason = el('input', { type: 'text', 'data-testid': 'reason-input', placeholder: 'the model reads it on a deny', size: '30' });
  const approve = el('button', { type: 'button', 'data-testid': 'approve-button', 'aria-describedby': describedBy }, 'Approve');
  const deny = el('button', { type: 'button', 'data-testid': 'deny-button', 'aria-describedby': describedBy }, 'Deny');
  const choose = (decision: 'allow' | 'deny') => () => {
    // One decision per approval: a second click would only be refused by the journal.
    approve.disabled = deny.disabled = reason.disabled = true;
    decide(decision, reason.value.trim());
  };
  approve.addEventListener('click', choose('allow'));
  deny.addEventListener('click', choose('deny'));
  return el(
    'li',
    { 'data-testid': 'approval', 'data-tool': approval.toolName },
    el('p', { id: describedBy }, el('code', {}, approval.toolName), ` ${JSON.stringify(approval.input)}`, el('br'), approval.audit.reason ?? ''),
    el('label', {}, 'Reason (optional) ', reason),
    ' ',
    approve,
    ' ',
    deny,
  );
}

/** The turn streaming in, and the progress of running calls: live only, never journaled. */
function showLive(handle: RunHandle<string>): void {
  const stream = byTestId('model-stream');
  const progress = byTestId('tool-progress');
  stream.textContent = '';
  progress.replaceChildren();
  // A turn's text stays shown until the next turn starts streaming.
  let ended = false;
  handle.on('turn:delta', ({ attempt, delta }) => {
    if (ended || attempt > 0) stream.textContent = ''; // a cut stream is retried from its start
    ended = false;
    if (delta.type === 'text') stream.textContent += delta.text;
  });
  handle.on('turn:end', () => {
    ended = true;
  });
  handle.on('tool:progress', ({ toolName, progress: done, total, message }) => {
    progress.append(el('li', { 'data-testid': 'progress-item' }, el('code', {}, toolName), ` ${done}/${total ?? '?'} ${message ?? ''}`));
  });
}

export function mountRunPanel(source: McpToolSource, policy: PolicyView): void {
  const journal = memoryJournal();
  const model = notesModel();
  const workflow = groceriesWorkflow(source);
  const button = byTestId<HTMLButtonElement>('run-button');
  const status = byTestId('run-status');
  const approvals = byTestId('approvals');

  const setStatus = (state: string, text: string): void => {
    status.dataset['status'] = state;
    status.textContent = text;
  };

  const follow = async (engine: Engine, handle: RunHandle<string>): Promise<void> => {
    button.disabled = true;
    approvals.replaceChildren();
    showLive(handle);
    setStatus('running', `Run ${handle.runId} is running…`);
    const outcome = await handle.result;
    await showAuditTrail(journal, handle.runId);
    if (outcome.status === 'suspended') {
      const waiting = outcome.approvals.length === 1 ? '1 call waits' : `${outcome.approvals.length} calls wait`;
      setStatus('suspended', `Run ${handle.runId} is suspended: ${waiting} for your decision.`);
      approvals.replaceChildren(
        ...outcome.approvals.map((approval, i) => approvalItem(approval, i, (decision, reason) => void decide(engine, approval, decision, reason).catch(showPageError))),
      );
      return;
    }
    button.disabled = false;
    if (outcome.status === 'completed') setStatus('completed', `Run ${handle.runId} completed.`);
    else setStatus('failed', `Run ${handle.runId} failed: ${outcome.error.code}: ${outcome.error.message}`);
  };

  const decide = async (engine: Engine, approval: PendingApproval, decision: 'allow' | 'deny', reason: string): Promise<void> => {
    const decided: ApprovalDecision = reason === '' ? decision : { decision, reason };
    // A false answer means the journal already held a resolution (a deadline, another tab):
    // resuming applies whichever one it holds, so there is nothing else to do about it.
    await engine.resolveExternal(approval.runId, approval.key, decided, { by: 'operator' });
    await follow(engine, engine.resume(approval.runId, workflow));
  };


  let runs = 0;
  button.addEventListener('click', () => {
    // Numbered, not the default random UUID: the page (and its screenshot) stays the same run to run.
    const runId = `groceries-${++runs}`;
    const engine = createEngine({ adapters: [model], journal, defaults: { model: 'scripted:notes', permissions: { preset: policy.preset() } } });
    void follow(engine, engine.run(workflow, null, { runId })).catch(showPageError);
  });
  button.disabled = false;
}
