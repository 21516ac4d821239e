/**
 * What the 2026-07-28 authorization rules add to the SDK's OAuth flow, where the SDK lacks
 * it (the flow itself stays the SDK's: docs/oauth.md):
 *  - dynamic client registration names an `application_type` (SEP-837): the host's own
 *    value, else "native" when every redirect URI is a loopback or custom-scheme one (an
 *    app on the user's device) and "web" otherwise;
 *  - authorization server metadata is used only when its `issuer` is the issuer its
 *    well-known URL was built from (RFC 8414 §3.3, OpenID Connect Discovery §4.3): a
 *    document naming another issuer is refused before the SDK reads an endpoint from it;
 *  - a scope step-up asks for what was granted before as well as what the server now
 *    challenges for (SEP-2350), not for the challenged scope alone.
 * The `iss` of the authorization response (RFC 9207) reaches the host, not this library:
 * docs/oauth.md says how a provider checks it.
 */
import { isRecord } from '../../records.js';

/** The host's client metadata, with the application_type it implies when it names none. */
export function withApplicationType(metadata: unknown): unknown {
  if (!isRecord(metadata) || metadata['application_type'] !== undefined) return metadata;
  const uris = Array.isArray(metadata['redirect_uris']) ? (metadata['redirect_uris'] as unknown[]) : [];
  const native = uris.length > 0 && uris.every((uri) => typeof uri === 'string' && !/^https?:\/\/(?!(localhost|127\.0\.0\.1|\[::1\])([:/]|$))/i.test(uri));
  return { ...metadata, application_type: native ? 'native' : 'web' };
}

/** Thrown from the fetch: the SDK reports it as the discovery failure it is. */
export class MetadataIssuerMismatch extends Error {
  override readonly name = 'MetadataIssuerMismatch';
}

/**
 * `response`, unless it is authorization server metadata naming an issuer it was not looked
 * up for: the path after the well-known segment (RFC 8414, OpenID's inserted form) or before
 * it (OpenID's appended form), identical but for a trailing "/" (which the SDK tolerates too).
 */
export async function checkMetadataIssuer(url: URL, response: Response): Promise<Response> {
  const found = /^(.*)\/\.well-known\/(?:oauth-authorization-server|openid-configuration)(.*)$/.exec(url.pathname);
  if (found === null || !response.ok) return response;
  const expected = `${url.origin}${found[1]}${found[2]}`.replace(/\/$/, '');
  const text = await response.text();
  let issuer: unknown;
  try {
    issuer = (JSON.parse(text) as { issuer?: unknown } | null)?.issuer;
  } catch {
    // Not JSON: the SDK says so.
  }
  if (issuer !== undefined && (typeof issuer !== 'string' || issuer.replace(/\/$/, '') !== expected)) {
    throw new MetadataIssuerMismatch(`the authorization server metadata at ${url.origin}${url.pathname} names another issuer than ${JSON.stringify(expected)}; it is not used`);
  }
  return new Response(text, response);
}

/** The scopes granted or asked for so far (at most 64), and what a step-up should ask for. */
export function grantedScopes(): { note(method: string, value: unknown): void; with(challenged: string | undefined): string | undefined } {
  const scopes = new Set<string>();
  return {
    note(method, value) {
      const scope = method === 'saveTokens' ? (isRecord(value) ? value['scope'] : undefined) : value instanceof URL ? value.searchParams.get('scope') : undefined;
      if (typeof scope === 'string') for (const name of scope.split(' ')) if (name !== '' && scopes.size < 64) scopes.add(name);
    },
    with: (challenged) => (challenged === undefined || scopes.size === 0 ? undefined : [...new Set([...scopes, ...challenged.split(' ').filter(Boolean)])].join(' ')),
  };
}
