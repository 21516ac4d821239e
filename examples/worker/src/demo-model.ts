/**
 * The scripted demo model: what a run gets with `MODEL` unset, so the Worker runs end to end
 * with no API key. It looks the task up with the remote server's first tool (the task as the
 * tool's first required string argument, `query` when it names none), saves what came back
 * as a note (the write that asks for approval), then says how that went. Each turn is a
 * function of the request alone, so a resumed run gets the same answers it got before.
 */
import type { ModelAdapter, ModelRequest, ToolResult, ToolSpec } from '@rulvar/core';
import { scripted, type ScriptedTurn } from '@rulvar/core/testing';

const NOTE_TOOL = 'notes_save_note';
const REMOTE_PREFIX = 'remote_';

export function demoModel(): ModelAdapter {
  return scripted(demoTurn);
}

function demoTurn(request: ModelRequest): ScriptedTurn | string {
  const task = request.messages.find((m) => m.role === 'user')?.text ?? '';
  const results = request.messages.flatMap((m) => (m.role === 'tool' ? m.results : []));
  const saved = results.find((r) => r.toolName === NOTE_TOOL);
  if (saved !== undefined) return saved.isError ? `The note was not saved: ${textOf(saved)}` : `Saved the note ${JSON.stringify(noteTitle(task))}.`;
  const lookedUp = results.find((r) => r.toolName.startsWith(REMOTE_PREFIX));
  const remote = request.tools.find((t) => t.name.startsWith(REMOTE_PREFIX));
  if (lookedUp === undefined && remote !== undefined) return { toolCalls: [{ name: remote.name, input: { [argumentOf(remote)]: task } }] };
  const body = lookedUp === undefined ? '(no remote tool to ask)' : textOf(lookedUp).slice(0, 10_000);
  return { toolCalls: [{ name: NOTE_TOOL, input: { title: noteTitle(task), body } }] };
}

/** The tool's first required string argument: `query` for a search, `message` for an echo. */
function argumentOf(tool: ToolSpec): string {
  const { required, properties } = tool.parameters as { required?: unknown; properties?: Record<string, { type?: unknown } | undefined> };
  const names = Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
  return names.find((name) => properties?.[name]?.type === 'string') ?? 'query';
}

function noteTitle(task: string): string {
  return task.slice(0, 200);
}

function textOf(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}
