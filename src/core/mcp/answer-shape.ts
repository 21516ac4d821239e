/**
 * Answers the SDK would drop. Its Protocol settles a request only when the answer passes the
 * strict JSON-RPC response schema; anything else carrying the request's id (a result that is
 * an array, a string or null, an error without an integer code, a member JSON-RPC does not
 * define, a `jsonrpc` other than "2.0") is reported as an unknown message, and the request
 * waits for its timer. A server answering every call that way would hold each call for the
 * whole of `callMs` and then read as a timeout. The wire client uses these checks to settle
 * such a request at once, as the protocol error it is (wire-client.ts). Transports that parse
 * what they receive (stdio, an SSE stream) would drop such a message before the client saw
 * it; they hand on `markedAnswer` in its place, an error response for the same id that the
 * client reads as the malformed answer it stands for.
 */
import { ErrorCode, isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../records.js';

/** The request id a parsed message answers, or undefined when it is no answer at all. */
export function answeredId(message: unknown): string | number | undefined {
  try {
    if (!isRecord(message) || !('result' in message || 'error' in message)) return undefined;
    const id = message['id'];
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
  } catch {
    // An in-process server's object can throw when read: it answers nothing we can name.
    return undefined;
  }
}

/**
 * What is wrong with an answer the SDK would not accept, in words that follow "the server
 * answered with"; undefined when the SDK accepts it. The common well-formed answer is
 * decided by property checks alone; the SDK's own guard runs only where those cannot decide
 * (a result's `_meta`, an error response past the basic checks).
 */
export function answerDefect(message: Record<string, unknown>): string | undefined {
  try {
    if (message['jsonrpc'] !== '2.0') return 'an answer whose jsonrpc is not "2.0"';
    const hasResult = 'result' in message;
    if (hasResult && 'error' in message) return 'an answer holding both a result and an error';
    if (Object.keys(message).length !== 3) return 'an answer with members JSON-RPC does not define';
    const id = message['id'];
    if (typeof id !== 'string' && !Number.isSafeInteger(id)) return 'an answer whose id is neither a string nor an integer';
    if (hasResult) {
      const result = message['result'];
      if (!isRecord(result)) return `a result that is ${kindOf(result)}, not an object`;
      return '_meta' in result && !isJSONRPCResultResponse(message) ? 'a result whose _meta is not valid MCP' : undefined;
    }
    const error = message['error'];
    if (!isRecord(error)) return `an error that is ${kindOf(error)}, not an object`;
    if (!Number.isSafeInteger(error['code']) || typeof error['message'] !== 'string') return 'an error without an integer code and a string message';
    return isJSONRPCErrorResponse(message) ? undefined : 'an error response that is not valid JSON-RPC';
  } catch {
    return 'an answer that cannot be read';
  }
}

/** Where a marked answer says what was wrong (see markedAnswer). */
const MARK = 'rulvar.malformedAnswer';

/**
 * For a parsed message that answers a request but is no JSON-RPC response, the error
 * response a transport hands on in its place; undefined for anything else. A server could
 * send such a mark itself: it would only have its error read as malformed, which it is not
 * worse off for.
 */
export function markedAnswer(message: unknown): JSONRPCErrorResponse | undefined {
  const id = answeredId(message);
  if (id === undefined) return undefined;
  const defect = answerDefect(message as Record<string, unknown>);
  if (defect === undefined) return undefined;
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidRequest, message: defect, data: { [MARK]: true } } };
}

/** The defect a marked answer's error stands for; undefined for any other error. */
export function markedDefect(error: { readonly message: string; readonly data?: unknown }): string | undefined {
  return isRecord(error.data) && error.data[MARK] === true ? error.message : undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
