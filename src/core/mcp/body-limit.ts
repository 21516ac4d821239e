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
  let previous = -1; // last byte seen, to find the blank line that ends an SSE event
  const limiter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (perEvent) {
        for (const byte of chunk) {
          size += 1;
          if (byte === LF && previous === LF) size = 0;
          if (byte !== CR) previous = byte;
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
