/**
 * The model a run uses, chosen by the `MODEL` var (`'adapterId:model'`). Real adapters
 * (Anthropic, OpenAI, over fetch) arrive in a later issue; until then the only adapter here
 * is `scripted`, and it is also what an unset `MODEL` gets, so the Worker runs end to end
 * with no API key. Any other adapter id is refused before a run starts.
 */
import { ConfigError, type ModelAdapter, type ModelRequest, type ToolResult } from '@rulvar/core';
import { scripted, type ScriptedTurn } from '@rulvar/core/testing';

export interface ModelChoice {
  readonly adapters: ModelAdapter[];
  /** What the engine's `defaults.model` gets. */
  readonly model: string;
}

export function chooseModel(value: string | undefined): ModelChoice {
  const name = value === undefined || value.trim() === '' ? 'scripted:demo' : value.trim();
  const colon = name.indexOf(':');
  if (colon <= 0 || colon === name.length - 1) {
    throw new ConfigError('config.invalid_value', `MODEL must look like 'adapterId:model', got ${JSON.stringify(name)}`);
  }
  const adapterId = name.slice(0, colon);
  if (adapterId !== 'scripted') {
    throw new ConfigError(
      'model.unknown_adapter',
      `MODEL names adapter ${JSON.stringify(adapterId)}, which this Worker does not have yet; unset MODEL (or use 'scripted:demo') to run the scripted demo`,
    );
  }
  return { adapters: [scripted(demoTurn)], model: name };
}

const NOTE_TOOL = 'notes_save_note';
const REMOTE_PREFIX = 'remote_';

/**
 * The demo agent: look the task up with the remote server's first tool, save what came back
 * as a note (the write that asks for approval), then say how that went. Each turn is a
 * function of the request alone, so a resumed run gets the same answers it got before.
 */
function demoTurn(request: ModelRequest): ScriptedTurn | string {
  const task = request.messages.find((m) => m.role === 'user')?.text ?? '';
  const results = request.messages.flatMap((m) => (m.role === 'tool' ? m.results : []));
  const saved = results.find((r) => r.toolName === NOTE_TOOL);
  if (saved !== undefined) return saved.isError ? `The note was not saved: ${textOf(saved)}` : `Saved the note ${JSON.stringify(noteTitle(task))}.`;
  const lookedUp = results.find((r) => r.toolName.startsWith(REMOTE_PREFIX));
  const remote = request.tools.find((t) => t.name.startsWith(REMOTE_PREFIX));
  if (lookedUp === undefined && remote !== undefined) return { toolCalls: [{ name: remote.name, input: { query: task } }] };
  const body = lookedUp === undefined ? '(no remote tool to ask)' : textOf(lookedUp).slice(0, 10_000);
  return { toolCalls: [{ name: NOTE_TOOL, input: { title: noteTitle(task), body } }] };
}

function noteTitle(task: string): string {
  return task.slice(0, 200);
}

function textOf(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}
