/**
 * `scripted()`: a deterministic ModelAdapter (id `scripted`). With a list, an agent's n-th turn
 * (n = assistant messages already in its request) gets `script[n]`, so a restarted process
 * that replays a journal asks for the same turn and gets the same answer. With a function,
 * the function decides. Either way the adapter records what it was asked.
 */
import type { ModelAdapter, ModelRequest, ModelResponse } from '../core/engine/model.js';

export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id?: string; name: string; input: unknown }[];
  usage?: { inputTokens: number; outputTokens: number };
}

/** A turn, or a bare string as shorthand for a text-only turn. */
export type Script = ReadonlyArray<ScriptedTurn | string> | ((request: ModelRequest) => ScriptedTurn | string | Promise<ScriptedTurn | string>);

export interface ScriptedModel extends ModelAdapter {
  readonly id: 'scripted';
  /** generate() invocations on this instance. */
  readonly calls: number;
  /** Every request received, in order (as long as `calls`). */
  readonly requests: readonly ModelRequest[];
}

export function scripted(script: Script): ScriptedModel {
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new TypeError('scripted() takes a list of turns or a function from request to turn');
  }
  const requests: ModelRequest[] = [];
  return {
    id: 'scripted',
    get calls() {
      return requests.length;
    },
    requests,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      requests.push({ ...request, messages: [...request.messages], tools: [...request.tools] });
      const n = request.messages.filter((m) => m.role === 'assistant').length;
      let turn: ScriptedTurn | string | undefined;
      if (typeof script === 'function') turn = await script(request);
      else {
        if (n >= script.length) {
          throw new Error(`scripted model: the script has ${script.length} turns and turn ${n} was asked for`);
        }
        turn = script[n];
      }
      return toResponse(turn, n);
    },
  };
}

function toResponse(turn: ScriptedTurn | string | undefined, n: number): ModelResponse {
  const shaped: ScriptedTurn = typeof turn === 'string' ? { text: turn } : (turn ?? {});
  const toolCalls = (shaped.toolCalls ?? []).map((call, i) => ({ id: call.id ?? `scripted-${n}-${i}`, name: call.name, input: call.input }));
  return {
    text: shaped.text ?? '',
    toolCalls,
    stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end',
    ...(shaped.usage === undefined ? {} : { usage: shaped.usage }),
  };
}
