/**
 * `scripted()`: a deterministic ModelAdapter (id `scripted`). With a list, an agent's n-th turn
 * (n = assistant messages already in its request) gets `script[n]`, so a restarted process
 * that replays a journal asks for the same turn and gets the same answer. With a function,
 * the function decides. Either way the adapter records what it was asked. With `{ stream }`
 * it streams too (scripted-stream.ts), so a UI can be tested against deltas as they come.
 */
import type { ModelAdapter, ModelRequest, ModelResponse } from '../core/model/types.js';
import { abortableSleep } from '../core/async.js';
import { deltasOf, type StreamOptions } from './scripted-stream.js';

export type { StreamOptions } from './scripted-stream.js';

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

/** Options of `scripted()`. */
export interface ScriptedOptions {
  /**
   * Stream each turn (the engine then emits `turn:delta`): text and tool-call inputs in
   * pieces of `chunkChars` characters (default 4), `delayMs` apart (default 0).
   */
  stream?: boolean | StreamOptions;
}

export function scripted(script: Script, options: ScriptedOptions = {}): ScriptedModel {
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new TypeError('scripted() takes a list of turns or a function from request to turn');
  }
  const requests: ModelRequest[] = [];
  const answer = async (request: ModelRequest): Promise<ModelResponse> => {
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
  };
  const model: ScriptedModel = {
    id: 'scripted',
    get calls() {
      return requests.length;
    },
    requests,
    generate: answer,
  };
  const stream = options.stream === true ? {} : options.stream === false ? undefined : options.stream;
  if (stream === undefined) return model;
  return Object.assign(model, {
    async *stream(request: ModelRequest, signal: AbortSignal) {
      const response = await answer(request);
      for (const delta of deltasOf(response, stream)) {
        if ((stream.delayMs ?? 0) > 0) await abortableSleep(stream.delayMs ?? 0, signal);
        yield delta;
      }
    },
  });
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
