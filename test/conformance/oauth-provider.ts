/**
 * The `http.authProvider` the conformance client hands to `mcp()` for auth/* scenarios:
 * what docs/oauth.md tells a host to write, and nothing the library does not document.
 *  - client credentials scenarios: the SDK's own ClientCredentialsProvider and
 *    PrivateKeyJwtProvider, with the context's credentials;
 *  - pre-registration: a provider returning the context's client_id and secret;
 *  - everything else: a host that completes the redirect itself (docs/oauth.md, "A host that
 *    completes the redirect itself"): it follows the authorization URL, checks the `iss` of
 *    the authorization response against the authorization server's metadata (RFC 9207), and
 *    exchanges the code with the SDK's `auth()` before returning.
 * The authorization server of a scenario answers the authorization request at once with a
 * redirect to `redirectUrl` carrying the code; nothing listens there.
 */
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface Context {
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly private_key_pem?: string;
  readonly signing_algorithm?: string;
}

export async function conformanceAuth(scenario: string, serverUrl: string): Promise<OAuthClientProvider> {
  const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as Context;
  if (scenario === 'auth/client-credentials-basic') {
    return new ClientCredentialsProvider({ clientId: context.client_id ?? '', clientSecret: context.client_secret ?? '' });
  }
  if (scenario === 'auth/client-credentials-jwt') {
    return new PrivateKeyJwtProvider({ clientId: context.client_id ?? '', privateKey: context.private_key_pem ?? '', algorithm: context.signing_algorithm ?? 'ES256' });
  }
  const registered = scenario === 'auth/pre-registration' ? { client_id: context.client_id ?? '', client_secret: context.client_secret ?? '' } : undefined;
  return new HeadlessGrant(serverUrl, registered);
}

class HeadlessGrant implements OAuthClientProvider {
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly serverUrl: string,
    registered: OAuthClientInformationMixed | undefined,
  ) {
    this.client = registered;
  }

  get redirectUrl() {
    return 'http://localhost:3000/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'rulvar-conformance', redirect_uris: [this.redirectUrl] };
  }
  /** A client ID metadata document URL, used where the authorization server supports those. */
  get clientMetadataUrl() {
    return 'https://conformance-test.local/client-metadata.json';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (location === null) throw new Error('the authorization server did not redirect');
    const callback = new URL(location);
    // The SDK keeps the metadata's other members: the flag is there when the server sent it.
    const metadata = this.discovery?.authorizationServerMetadata as { issuer?: string; authorization_response_iss_parameter_supported?: unknown } | undefined;
    // RFC 9207: an iss the authorization server advertises must be there; any iss must be its issuer, as written.
    const iss = callback.searchParams.get('iss');
    if (metadata?.authorization_response_iss_parameter_supported === true && iss === null) throw new Error('the authorization response has no iss');
    if (iss !== null && iss !== metadata?.issuer) throw new Error('the authorization response names another issuer');
    const code = callback.searchParams.get('code');
    if (code === null) throw new Error('the authorization response has no code');
    const resourceMetadataUrl = this.discovery?.resourceMetadataUrl;
    await auth(this, { serverUrl: this.serverUrl, authorizationCode: code, ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: new URL(resourceMetadataUrl) }) });
  }
}
