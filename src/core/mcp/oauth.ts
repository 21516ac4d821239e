/**
 * `http.authProvider`: the SDK's OAuthClientProvider, handed to its streamable-http transport,
 * which runs the authorization flow itself on a 401 (or a 403 insufficient_scope) and resends.
 * This module adds what the library owes around it:
 *
 *  - every secret the provider hands out or is handed (access and refresh tokens, the client
 *    secret) is given to the source's Redactor before the SDK can put it on the wire, so an
 *    echo of it is scrubbed from errors and tool outputs like an http.headers value;
 *  - a provider method that throws becomes a typed failure naming the method and the error's
 *    class, never its message (a provider's own error may quote what it was holding);
 *  - a provider that finishes authorization inside redirectToAuthorization (a server-side host
 *    that exchanges the code itself) gets the refused request resent once, instead of failing it
 *    with the SDK's bare "Unauthorized";
 *  - a 401 to that resend, or to the SDK's own resend after a refresh, ends the flow with an
 *    error naming the server's challenge (`error="invalid_token"`, say): the token the flow just
 *    obtained was refused, so running the flow again (the SDK would refresh and resend a second
 *    time) cannot help and only hides what the server said;
 *  - a scope step-up (403 insufficient_scope) authorizes anew: the SDK would otherwise spend a
 *    stored refresh token, which cannot widen a grant, and resend with the same narrow token;
 *    one that cannot succeed (the new token is refused too, or the server keeps asking for
 *    more) ends with an error naming the server's challenge, as a refusal without a provider;
 *  - closing the transport ends the flow: its requests in flight are aborted, redirects to
 *    another origin are never followed (oauth-fetch.ts), and no provider method is called
 *    after it.
 */
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError, type StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HttpAuthError, describeRefusedStepUp, describeRefusedToken } from './challenge.js';
import type { FetchLike } from './config-types.js';
import { FlowFetch } from './oauth-fetch.js';
import type { Redactor } from '../secrets/redactor.js';
import { grantedScopes, withApplicationType } from './modern/oauth-rules.js';

export type { OAuthClientProvider };

/** The provider members the SDK calls unconditionally; checked at construction. */
export const REQUIRED_PROVIDER_METHODS = [
  'clientInformation',
  'tokens',
  'saveTokens',
  'redirectToAuthorization',
  'saveCodeVerifier',
  'codeVerifier',
] as const;

/** The host's provider failed; the message names the method and the error's class. */
export class AuthProviderError extends Error {
  override readonly name = 'AuthProviderError';
}

/** Authorization is waiting on someone (the user, the host): nothing was resent. */
export class AuthorizationPendingError extends Error {
  override readonly name = 'AuthorizationPendingError';
}

/** The provider as the SDK sees it, plus how many authorization redirects it was asked for. */
export interface GuardedProvider {
  readonly provider: OAuthClientProvider;
  redirects(): number;
  /**
   * The server wants a larger scope: hide the refresh token until new tokens are saved. On the
   * 2026-07-28 revision, the scope to ask for instead of `challenged` (modern/oauth-rules.ts).
   */
  stepUp(challenged?: string): string | undefined;
  /** The source closed: from now on no method of the host's provider is called. */
  close(): void;
}

/** `modern`: the source may speak 2026-07-28, whose authorization rules apply (modern/oauth-rules.ts). */
export function guardProvider(host: OAuthClientProvider, redactor: Redactor, modern = false): GuardedProvider {
  let redirects = 0;
  let steppingUp = false;
  let closed = false;
  const granted = grantedScopes();
  const remember = (slot: string, value: unknown): void => {
    if (typeof value === 'string' && value.length > 0) redactor.remember([[`oauth ${slot}`, value]]);
  };
  const rememberTokens = (tokens: unknown): void => {
    const record = tokens as { access_token?: unknown; refresh_token?: unknown } | undefined;
    remember('access_token', record?.access_token);
    remember('refresh_token', record?.refresh_token);
  };
  const rememberClient = (info: unknown): void => remember('client_secret', (info as { client_secret?: unknown } | undefined)?.client_secret);
  const seen: Partial<Record<string, (value: unknown) => void>> = {
    tokens: rememberTokens,
    saveTokens: rememberTokens,
    clientInformation: rememberClient,
    saveClientInformation: rememberClient,
  };
  const provider = new Proxy(host, {
    get(target, key, receiver) {
      const member: unknown = Reflect.get(target, key, receiver);
      if (modern && key === 'clientMetadata') return withApplicationType(member);
      if (typeof member !== 'function' || typeof key !== 'string') return member;
      const method = member as (...args: unknown[]) => unknown;
      return async (...args: unknown[]) => {
        // A flow that outlived close() (an answer already on its way) must not reach the host.
        if (closed) throw new AuthProviderError(`the source was closed, so the http.authProvider's ${key}() was not called`);
        // Saved values are secrets before the host stores them; returned ones before they are sent.
        if (key.startsWith('save')) seen[key]?.(args[0]);
        if (key === 'saveTokens' || key === 'redirectToAuthorization') granted.note(key, args[0]);
        let result: unknown;
        try {
          result = await method.apply(target, args);
        } catch (error) {
          throw new AuthProviderError(`the http.authProvider's ${key}() failed (${error instanceof Error ? error.name : typeof error})`);
        }
        if (!key.startsWith('save')) seen[key]?.(result);
        if (key === 'redirectToAuthorization') redirects += 1;
        if (key === 'saveTokens' || key === 'redirectToAuthorization') steppingUp = false;
        return key === 'tokens' && steppingUp ? withoutRefresh(result) : result;
      };
    },
  });
  const stepUp = (challenged?: string) => {
    steppingUp = true;
    return modern ? granted.with(challenged) : undefined;
  };
  return { provider, redirects: () => redirects, stepUp, close: () => (closed = true) };
}

function withoutRefresh(tokens: unknown): unknown {
  if (typeof tokens !== 'object' || tokens === null) return tokens;
  const { refresh_token: _dropped, ...rest } = tokens as Record<string, unknown>;
  return rest;
}

/**
 * Which requests are the flow's own resends, and the MCP endpoint's last 401 challenge: the
 * header fetch (http-fetch.ts) reports every 401 here and makes a 401 to a resend final. A
 * request is recognised by its body, which the SDK sends as the JSON of the message, so
 * concurrent requests are told apart.
 */
export class ResendWatch {
  private readonly resending = new Set<string>();
  /** The challenge of the endpoint's last 401, for the SDK's own "401 after authentication". */
  lastChallenge: string | null = null;

  readonly onUnauthorized = (challenge: string | null, requestBody: unknown): boolean => {
    this.lastChallenge = challenge;
    return typeof requestBody === 'string' && this.resending.has(requestBody);
  };

  async resend<T>(message: JSONRPCMessage | JSONRPCMessage[], send: () => Promise<T>): Promise<T> {
    const body = JSON.stringify(message);
    this.resending.add(body);
    try {
      return await send();
    } finally {
      this.resending.delete(body);
    }
  }
}

/**
 * How many authorizations the provider may complete for one request before it is refused:
 * a first grant and one step-up. A server that keeps asking for more scope stops here.
 */
const MAX_AUTHORIZATIONS = 2;

/**
 * The SDK transport, resending a request when the provider completed an authorization
 * redirect while it was refused and now holds a token. Anything else a redirect leaves behind
 * is a typed wait for the host, not the SDK's bare "Unauthorized".
 */
export class AuthorizingTransport extends StreamableHTTPClientTransport {
  private readonly flow: FlowFetch;

  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions & { readonly fetch: FetchLike },
    private readonly guard: GuardedProvider,
    private readonly watch: ResendWatch,
  ) {
    const flow = new FlowFetch(options.fetch, url);
    super(url, { ...options, fetch: flow.fetch, authProvider: guard.provider });
    this.flow = flow;
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: Parameters<StreamableHTTPClientTransport['send']>[1]): Promise<void> {
    for (let authorizations = 0; ; ) {
      const before = this.guard.redirects();
      try {
        if (authorizations === 0) return await super.send(message, options);
        const resend = () => this.watch.resend(message, () => super.send(message, options));
        if (authorizations < MAX_AUTHORIZATIONS) return await resend();
        // Refused before the SDK could ask the provider for one authorization more.
        return await this.flow.finalAttempt(message, `it was still refusing after ${MAX_AUTHORIZATIONS} authorizations for one request`, resend);
      } catch (error) {
        if (error instanceof StreamableHTTPError && error.code === 401) throw new HttpAuthError(401, describeRefusedToken(this.watch.lastChallenge, ''));
        // The SDK's "403 after trying upscoping": the token the step-up obtained is refused too.
        if (error instanceof StreamableHTTPError && error.code === 403) throw this.stepUpRefused();
        if (!(error instanceof UnauthorizedError) || this.guard.redirects() === before) throw error;
        const tokens = await this.guard.provider.tokens();
        if (tokens?.access_token === undefined) {
          throw new AuthorizationPendingError(
            'authorization was started (the http.authProvider was asked to redirect to the authorization server) but no token is available yet; call again once it has one',
          );
        }
        authorizations += 1;
      }
    }
  }

  override async close(): Promise<void> {
    this.flow.close();
    this.guard.close();
    await super.close();
  }

  private stepUpRefused(): HttpAuthError {
    const challenge = this.flow.lastRefusal?.challenge ?? null;
    return new HttpAuthError(403, describeRefusedStepUp(403, challenge, 'it refused the token the http.authProvider step-up had just obtained'));
  }
}
