/**
 * The permission chain (spec/runtime.md): one fixed order for every call, native or MCP,
 *
 *   hooks -> deny rules -> ask rules -> canUseTool -> terminal default
 *
 * and the first decisive verdict wins: once a layer decides, no later layer is consulted
 * (a later hook or canUseTool is never even called). A hook's `{ modifiedInput }` replaces
 * the input for every later layer and is what the tool runs with.
 *
 * Host callbacks cannot throw past policy. A hook or canUseTool that throws, rejects, or
 * returns something that is not a decision ends the chain with deny at its own layer,
 * with a reason naming the layer and the error's class. Fail closed, because a guard that
 * crashed has not vouched for the call, and deny (not ask) because an approver shown
 * "the policy crashed" has nothing to judge. The error's message is not used: it may quote
 * the input, and reasons must never carry input values. The same holds when the call's
 * signal aborts while a callback is pending: the chain stops waiting and denies.
 */
import { quoteName } from '../tools/names.js';
import { mergeConfig, mergeConfigList, type MergedPermissionConfig } from './merge.js';
import { byDefault, byRules, finish, type Judgement } from './judgement.js';
import type { PermissionConfig, PermissionDecision, PermissionEvaluation, ToolCallInfo, Verdict } from './types.js';

type Outcome =
  | { readonly kind: 'continue'; readonly input: unknown }
  | { readonly kind: 'decide'; readonly verdict: Verdict; readonly input: unknown; readonly reason?: string }
  | { readonly kind: 'fail'; readonly reason: string };

const ABORTED: unique symbol = Symbol('aborted');

function isVerdict(value: unknown): value is Verdict {
  return value === 'allow' || value === 'deny' || value === 'ask';
}

/** Reads a callback's return value; anything unrecognised is a failure, never a pass. */
function interpret(decision: unknown, input: unknown, label: string): Outcome {
  if (decision === undefined || decision === null) return { kind: 'continue', input };
  if (isVerdict(decision)) return { kind: 'decide', verdict: decision, input };
  if (typeof decision === 'object') {
    const d = decision as Record<string, unknown>;
    const next = 'modifiedInput' in d ? d['modifiedInput'] : input;
    if ('verdict' in d) {
      const verdict = d['verdict'];
      if (!isVerdict(verdict)) return { kind: 'fail', reason: `${label} returned an unrecognised verdict` };
      const reason = d['reason'];
      return { kind: 'decide', verdict, input: next, ...(typeof reason === 'string' ? { reason } : {}) };
    }
    if ('modifiedInput' in d) return { kind: 'continue', input: next };
  }
  return { kind: 'fail', reason: `${label} returned something that is not a permission decision` };
}

/** Waits for a callback's result unless the signal aborts first. */
function abortable<T>(value: T | Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (signal === undefined) return Promise.resolve(value);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(value).then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

async function consult(
  label: string,
  invoke: () => PermissionDecision | Promise<PermissionDecision>,
  input: unknown,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  if (signal?.aborted === true) return { kind: 'fail', reason: `permission evaluation was aborted before ${label}` };
  try {
    const decision = await abortable(invoke(), signal);
    if (decision === ABORTED) return { kind: 'fail', reason: `permission evaluation was aborted during ${label}` };
    return interpret(decision, input, label);
  } catch (error) {
    const kind = error instanceof Error ? error.name.slice(0, 40) : typeof error;
    return { kind: 'fail', reason: `${label} failed (${kind}), so the call is denied` };
  }
}

function isConfigList(
  config: PermissionConfig | ReadonlyArray<PermissionConfig | undefined> | undefined,
): config is ReadonlyArray<PermissionConfig | undefined> {
  return Array.isArray(config);
}

/**
 * Judges one call. `config` may be a list (engine first, then profile, then per-call), which
 * is merged with mergePermissionConfigs. Rejects only with a ConfigError for a malformed
 * config; nothing a callback or the input does makes it reject.
 */
export async function evaluatePermission(
  config: PermissionConfig | ReadonlyArray<PermissionConfig | undefined> | undefined,
  call: ToolCallInfo,
): Promise<PermissionEvaluation> {
  const { audit, input } = await judgePermission(config, call);
  return Object.freeze({ ...audit, input });
}

/**
 * evaluatePermission with the audit and the input apart, as dispatchTool hands them on: the
 * audit is a fresh object of its own (not frozen, as dispatchTool always returned it), so
 * nothing has to be copied out of a frozen evaluation on every call. Without hooks and
 * canUseTool nothing can wait, so the verdict is returned as it is, not as a promise: no
 * async frame, closure or microtask per call, as this runs on every dispatched call. Throws
 * a ConfigError for a malformed config (its callers are async, so that is a rejection).
 */
const NOTHING_TO_MERGE = mergeConfigList([]);

export function judgePermission(
  config: PermissionConfig | ReadonlyArray<PermissionConfig | undefined> | undefined,
  call: ToolCallInfo,
): Judgement | Promise<Judgement> {
  const policy = config === undefined ? NOTHING_TO_MERGE : isConfigList(config) ? mergeConfigList(config) : mergeConfig(config);
  if (policy.hooks.length > 0 || policy.canUseTool !== undefined) return judgeWithCallbacks(policy, call);
  return byRules(policy, call, call.input) ?? byDefault(policy, call, call.input);
}

async function judgeWithCallbacks(policy: MergedPermissionConfig, call: ToolCallInfo): Promise<Judgement> {
  let input = call.input;
  // Each callback gets a fresh frozen view, so one cannot swap the input another one sees.
  const view = (): ToolCallInfo => Object.freeze({ ...call, input });
  const decided = (verdict: Verdict, by: string): string =>
    verdict === 'allow'
      ? `${by} allowed tool ${quoteName(call.toolName)}`
      : verdict === 'deny'
        ? `${by} denied tool ${quoteName(call.toolName)}`
        : `${by} asks approval for tool ${quoteName(call.toolName)}`;

  for (const [index, hook] of policy.hooks.entries()) {
    const label = `permission hook #${index + 1}`;
    const outcome = await consult(label, () => hook(view()), input, call.signal);
    if (outcome.kind === 'fail') return finish(policy, call, input, 'deny', 'hook', outcome.reason);
    input = outcome.input;
    if (outcome.kind === 'decide') {
      return finish(policy, call, input, outcome.verdict, 'hook', outcome.reason ?? decided(outcome.verdict, label));
    }
  }

  const ruled = byRules(policy, call, input);
  if (ruled !== undefined) return ruled;

  const { canUseTool } = policy;
  if (canUseTool !== undefined) {
    const outcome = await consult('canUseTool', () => canUseTool(call.toolName, input, view()), input, call.signal);
    if (outcome.kind === 'fail') return finish(policy, call, input, 'deny', 'canUseTool', outcome.reason);
    input = outcome.input;
    if (outcome.kind === 'decide') {
      return finish(policy, call, input, outcome.verdict, 'canUseTool', outcome.reason ?? decided(outcome.verdict, 'canUseTool'));
    }
  }
  return byDefault(policy, call, input);
}

