/**
 * Redirects are answers, never followed. `fetch` carries a request's headers across a
 * redirect (it drops only `Authorization`, and workerd not even that), so following one would
 * hand `x-api-key`, `api-key` or a gateway header to whatever origin the provider, a proxy or
 * an attacker in between named. Browsers hide a redirect's target (an opaque redirect), so no
 * runtime can follow same-origin ones only; every runtime refuses them all, the same way.
 */
import type { Redactor } from '../core/secrets/redactor.js';
import { providerError, type ProviderError } from './errors.js';

/** A 3xx, or the status-0 opaque redirect a browser gives for `redirect: 'manual'`. */
export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

export function redirectRefused(provider: string, url: string, response: Response, redactor: Redactor): ProviderError {
  const target =
    response.type === 'opaqueredirect'
      ? 'a redirect whose status and target the runtime hides'
      : `HTTP ${response.status} to ${originOf(response.headers.get('location'), url) ?? 'an unreadable location'}`;
  const message = `${provider} answered a redirect (${target}); redirects are not followed, so the request and its credentials go to ${originOf(url) ?? 'the baseURL'} only`;
  const status = response.status === 0 ? {} : { status: response.status };
  return providerError('model.protocol', message, { retryable: false, ...status, redactor });
}

/** Scheme, host and port only: a path or userinfo may carry a token. */
function originOf(location: string | null, base?: string): string | undefined {
  if (location === null) return undefined;
  try {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    return new URL(location, base === undefined ? page : new URL(base, page)).origin;
  } catch {
    return undefined;
  }
}
