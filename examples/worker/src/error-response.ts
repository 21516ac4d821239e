/**
 * Whatever was thrown, as the JSON error the Worker answers. An HttpError says what it is; a
 * library error keeps its code and message (those never carry header values or other
 * secrets); anything else becomes a generic 500, because a raw platform error may quote what
 * it was handed.
 */
import { RulvarError } from '@rulvar/core';
import { HttpError, jsonError } from './http.js';

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) return jsonError(error.status, error.code, error.message, error.headers);
  if (RulvarError.is(error)) return jsonError(500, error.code, error.message);
  return jsonError(500, 'worker.internal', 'the Worker failed; see its logs');
}
