/**
 * The fetch under an authorizing transport (oauth.ts). Every request of the SDK's transport
 * goes through it; the OAuth flow's own requests (metadata, registration, token) are the ones
 * not sent to the MCP endpoint. It adds what the flow needs to be safe:
 *
 *  - `close()` aborts the signal of every flow request in flight, so its connection is released,
 *    and refuses any flow request after it: a token request must not go on being read after
 *    the source closed. (The SDK aborts the MCP endpoint's requests itself when its transport
 *    closes. A host's http.fetch that ignores the signal may still deliver an answer; the
 *    provider guard in oauth.ts then keeps it from ever reaching the provider.)
 *  - a flow request never has a redirect followed by the platform (it goes out with
 *    `redirect: 'manual'`), and a redirect to another origin is refused typed. A token request
 *    carries the client secret, the PKCE code verifier or a refresh token in its body, which a
 *    307 or 308 would deliver to wherever it points. A redirect within the same origin is
 *    handed back to the SDK, which follows those within that origin only.
 *  - the MCP endpoint's latest 401 or 403 challenge is kept, for the refusal that ends a
 *    step-up which cannot succeed (oauth.ts), and a request on its last allowed attempt
 *    (`finalAttempt`) has a 401 or 403 refused here, naming the challenge, before the SDK can
 *    ask the provider for yet another authorization. Requests are told apart by their body,
 *    which the SDK sends as the JSON of the message.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HttpAuthError, describeRefusedStepUp } from './challenge.js';
import type { FetchLike } from './config-types.js';

/** A flow request was redirected to another origin (or where to is hidden): not followed. */
export class OAuthRedirectError extends Error {
  override readonly name = 'OAuthRedirectError';
}

/** The source was closed while (or before) a flow request was made. */
export class FlowClosedError extends Error {
  override readonly name = 'FlowClosedError';
}

export interface Refusal {
  readonly status: 401 | 403;
  /** The WWW-Authenticate header as the server sent it. */
  readonly challenge: string | null;
}

export class FlowFetch {
  private readonly ended = new AbortController();
  /** Bodies of requests whose next refusal is final, with the reason to give. */
  private readonly final = new Map<string, string>();
  /** The MCP endpoint's last 401 or 403. */
  lastRefusal: Refusal | undefined;

  constructor(
    private readonly inner: FetchLike,
    private readonly endpoint: URL,
  ) {}

  readonly fetch: FetchLike = async (input, init) => {
    const url = new URL(String(input));
    if (url.origin === this.endpoint.origin && url.pathname === this.endpoint.pathname) {
      const response = await this.inner(input, init);
      if (response.status !== 401 && response.status !== 403) return response;
      const challenge = response.headers.get('www-authenticate');
      this.lastRefusal = { status: response.status, challenge };
      const why = typeof init?.body === 'string' ? this.final.get(init.body) : undefined;
      if (why === undefined) return response;
      void response.body?.cancel().catch(() => undefined);
      throw new HttpAuthError(response.status, describeRefusedStepUp(response.status, challenge, why));
    }
    if (this.ended.signal.aborted) throw new FlowClosedError('the source was closed, so the OAuth request was not sent');
    const caller = init?.signal;
    const signal = caller === undefined || caller === null ? this.ended.signal : AbortSignal.any([caller, this.ended.signal]);
    const response = await this.inner(input, { ...init, signal, redirect: 'manual' });
    refuseForeignRedirect(response, url);
    return response;
  };

  /** Runs `send` with a 401 or 403 to `message` refused at once, for `why`. */
  async finalAttempt<T>(message: JSONRPCMessage | JSONRPCMessage[], why: string, send: () => Promise<T>): Promise<T> {
    const body = JSON.stringify(message);
    this.final.set(body, why);
    try {
      return await send();
    } finally {
      this.final.delete(body);
    }
  }

  close(): void {
    this.ended.abort();
  }
}

function refuseForeignRedirect(response: Response, from: URL): void {
  const what = `the OAuth request to ${from.origin}${from.pathname}`;
  const why = 'OAuth requests carry credentials (a client secret, a code verifier, tokens), so it was not followed';
  // Browsers answer a manual redirect with an opaque response that hides its target.
  if (response.type === 'opaqueredirect') throw new OAuthRedirectError(`${what} was redirected where this runtime does not say; ${why}`);
  if (response.status < 300 || response.status > 399) return;
  const target = locationOf(response, from);
  if (target === undefined || target.origin === from.origin) return;
  void response.body?.cancel().catch(() => undefined);
  // The origin only: a Location's path and query can carry a code or a token.
  throw new OAuthRedirectError(`${what} was redirected to another origin, ${target.origin}; ${why}`);
}

/** Where a redirect points; undefined when it does not say (the SDK follows nothing then). */
function locationOf(response: Response, from: URL): URL | undefined {
  const location = response.headers.get('location');
  if (location === null) return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}
