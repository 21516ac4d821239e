/**
 * A cap on what one HTTP response may make the host hold, the streamable-http counterpart of
 * stdio's 10 MB framing cap. A JSON response may be at most MAX_MESSAGE_BYTES in total; an
 * SSE stream (which may rightly run for hours) may carry at most that much in one event.
 * Past it the body errors, the request fails, and the session is dropped, instead of the
 * SDK buffering whatever a hostile server keeps sending.
 */

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;



const LF = 0x0a;
const CR = 0x0d;

/**
 * `onOverflow` hears about a cut directly: the SDK rewraps SSE errors (and would try to
 * resume the stream) and browsers turn a failed body into a bare "Failed to fetch", so the
 * error itself may never reach anyone intact.
 */
export function limitResponse(response: Response, onOverflow: (error: Error) => void, maxBytes: number = MAX_MESSAGE_BYTES): Response {
  if (response.body === null) return response;
  const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  let size = 0;
  let lineEnded = false; // the last thing seen was a line end (a second one ends an event)
  let afterCR = false;
  const limiter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (perEvent) {
        for (const byte of chunk) {
          size += 1;
          if (size > maxBytes) break;
          // An event ends at a blank line: two line ends in a row, each LF, CR or CRLF.
          if (byte === LF && afterCR) {
            afterCR = false; // the LF of a CRLF: the line end was counted at its CR
            continue;
          }
          afterCR = byte === CR;
          if (byte === LF || byte === CR) {
            if (lineEnded) size = 0;
            lineEnded = !lineEnded;
          } else lineEnded = false;
        }
      } else size += chunk.byteLength;
      if (size > maxBytes) {
        const error = new Error(`the server sent more than ${maxBytes} bytes in one ${perEvent ? 'event' : 'response'}`);
        onOverflow(error);
        controller.error(error);
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limiter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
