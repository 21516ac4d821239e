/**
 * Unit tests for what this client accepts from a 2026-07-28 server and what it adds to the
 * SDK's OAuth flow for that revision: src/core/mcp/modern/answers.ts (discover and list
 * results, result types, how long a page stays fresh) and src/core/mcp/modern/oauth-rules.ts
 * (application_type, the metadata's issuer, the scopes a step-up asks for). Real v2 servers
 * and authorization servers drive these in the suites, one shape per case; here each check
 * meets the values on both sides of it.
 */
import { describe, expect, it } from 'vitest';
import { DiscoverResultSchema, freshFor, knownResultType, MAX_TTL_MS, ModernListSchema } from '../../src/core/mcp/modern/answers.js';
import { checkMetadataIssuer, grantedScopes, MetadataIssuerMismatch, withApplicationType } from '../../src/core/mcp/modern/oauth-rules.js';

const accepts = (schema: typeof DiscoverResultSchema | typeof ModernListSchema, value: unknown): boolean => schema.safeParse(value).success;
const tool = { name: 't', inputSchema: { type: 'object' } };

describe('DiscoverResultSchema', () => {
  it('supported versions and capabilities, complete or of no result type', () => {
    expect(accepts(DiscoverResultSchema, { supportedVersions: ['2026-07-28'], capabilities: {} })).toBe(true);
    expect(accepts(DiscoverResultSchema, { resultType: 'complete', supportedVersions: [], capabilities: { tools: {} } })).toBe(true);
  });

  it.each([
    ['another result type', { resultType: 'input_required', supportedVersions: [], capabilities: {} }],
    ['no versions', { capabilities: {} }],
    ['a version that is no string', { supportedVersions: ['2026-07-28', 1], capabilities: {} }],
    ['no capabilities', { supportedVersions: [] }],
    ['capabilities as a list', { supportedVersions: [], capabilities: [] }],
    ['null', null],
  ])('%s is refused, naming the shape', (_name, value) => {
    const parsed = DiscoverResultSchema.safeParse(value);
    expect(parsed.error?.issues[0]?.message).toBe('not a server/discover result: needs supportedVersions (strings) and capabilities');
  });
});

describe('ModernListSchema', () => {
  it('named tools with object schemas; optional output schema, description, title and cursor', () => {
    expect(accepts(ModernListSchema, { tools: [] })).toBe(true);
    expect(accepts(ModernListSchema, { tools: [tool] })).toBe(true);
    expect(accepts(ModernListSchema, { tools: [{ ...tool, outputSchema: { type: 'object' }, description: 'd', title: 'T' }], nextCursor: 'c', ttlMs: 5 })).toBe(true);
  });

  it.each([
    ['an input_required page', { resultType: 'input_required', tools: [] }],
    ['no tools', {}],
    ['tools as an object', { tools: { t: tool } }],
    ['a tool that is null', { tools: [null] }],
    ['a tool without a name', { tools: [{ inputSchema: {} }] }],
    ['a numeric name', { tools: [{ name: 1, inputSchema: {} }] }],
    ['no inputSchema', { tools: [{ name: 't' }] }],
    ['a boolean inputSchema', { tools: [{ name: 't', inputSchema: true }] }],
    ['an outputSchema that is a string', { tools: [{ ...tool, outputSchema: 'x' }] }],
    ['a numeric description', { tools: [{ ...tool, description: 1 }] }],
    ['a numeric title', { tools: [{ ...tool, title: 1 }] }],
    ['a numeric cursor', { tools: [tool], nextCursor: 2 }],
    ['one bad tool among good ones', { tools: [tool, { name: 2, inputSchema: {} }] }],
  ])('%s is refused, naming the shape', (_name, value) => {
    const parsed = ModernListSchema.safeParse(value);
    expect(parsed.error?.issues[0]?.message).toBe('not a tools/list result: needs a tools array of named tools with object schemas');
  });
});

describe('knownResultType and freshFor', () => {
  it('complete, input_required and absent are known; anything else is not', () => {
    expect([{}, { resultType: 'complete' }, { resultType: 'input_required' }].map(knownResultType)).toEqual([true, true, true]);
    expect([{ resultType: 'partial' }, { resultType: 1 }, { resultType: null }, { resultType: 'toString' }].map(knownResultType)).toEqual([false, false, false, false]);
  });

  it('a positive ttlMs, at most a day; anything else is stale at once', () => {
    expect([freshFor({ ttlMs: 1 }), freshFor({ ttlMs: 1500.5 }), freshFor({ ttlMs: MAX_TTL_MS }), freshFor({ ttlMs: MAX_TTL_MS + 1 })]).toEqual([1, 1500.5, MAX_TTL_MS, MAX_TTL_MS]);
    expect([freshFor({}), freshFor({ ttlMs: 0 }), freshFor({ ttlMs: -5 }), freshFor({ ttlMs: '100' }), freshFor({ ttlMs: Number.NaN })]).toEqual([0, 0, 0, 0, 0]);
    expect(freshFor({ ttlMs: Number.POSITIVE_INFINITY })).toBe(MAX_TTL_MS);
    expect(MAX_TTL_MS).toBe(24 * 60 * 60 * 1000);
  });
});

describe('withApplicationType (SEP-837)', () => {
  it.each([
    [['http://localhost:3000/cb'], 'native'],
    [['http://127.0.0.1/cb', 'http://[::1]:9/cb'], 'native'],
    [['HTTP://LOCALHOST'], 'native'],
    [['com.example.app:/oauth'], 'native'],
    [['https://app.example/cb'], 'web'],
    [['http://localhost.evil.example/cb'], 'web'],
    [['http://127.0.0.1.evil.example/cb'], 'web'],
    [['http://localhost:3000/cb', 'https://app.example/cb'], 'web'],
    [[], 'web'],
    [[42], 'web'],
  ])('redirect URIs %j make %s', (uris, type) => {
    expect(withApplicationType({ client_name: 'c', redirect_uris: uris })).toEqual({ client_name: 'c', redirect_uris: uris, application_type: type });
  });

  it("the host's own value is kept, and metadata that is no object or has no URI list is handled", () => {
    const own = { redirect_uris: ['https://a.example'], application_type: 'native' };
    expect(withApplicationType(own)).toBe(own);
    expect(withApplicationType(null)).toBeNull();
    expect(withApplicationType({ redirect_uris: 'http://localhost' })).toEqual({ redirect_uris: 'http://localhost', application_type: 'web' });
  });
});

describe('checkMetadataIssuer (RFC 8414 §3.3)', () => {
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-kept': '1' } });

  it.each([
    ['https://as.example/.well-known/oauth-authorization-server', 'https://as.example'],
    ['https://as.example/.well-known/oauth-authorization-server', 'https://as.example/'],
    ['https://as.example/.well-known/oauth-authorization-server/tenant', 'https://as.example/tenant'],
    ['https://as.example/.well-known/openid-configuration/tenant', 'https://as.example/tenant'],
    ['https://as.example/tenant/.well-known/openid-configuration', 'https://as.example/tenant'],
  ])('metadata at %s naming %s is used as it came', async (url, issuer) => {
    const checked = await checkMetadataIssuer(new URL(url), json({ issuer, token_endpoint: 'https://as.example/t' }));
    expect([checked.status, checked.headers.get('x-kept'), await checked.json()]).toEqual([200, '1', { issuer, token_endpoint: 'https://as.example/t' }]);
  });

  it.each([
    ['another host', 'https://evil.example'],
    ['another tenant', 'https://as.example/other'],
    ['a number', 7],
    ['null', null],
  ])('metadata naming %s is refused, saying which issuer was expected', async (_name, issuer) => {
    const url = new URL('https://as.example/.well-known/oauth-authorization-server/tenant');
    const refused = checkMetadataIssuer(url, json({ issuer }));
    await expect(refused).rejects.toBeInstanceOf(MetadataIssuerMismatch);
    await expect(refused).rejects.toThrow(
      'the authorization server metadata at https://as.example/.well-known/oauth-authorization-server/tenant names another issuer than "https://as.example/tenant"; it is not used',
    );
  });

  it('no issuer, a body that is no JSON, a failed answer and a URL that is no metadata are handed on', async () => {
    const url = new URL('https://as.example/.well-known/oauth-authorization-server');
    expect(await (await checkMetadataIssuer(url, json({ token_endpoint: 'x' }))).json()).toEqual({ token_endpoint: 'x' });
    expect(await (await checkMetadataIssuer(url, new Response('<html>', { status: 200 }))).text()).toBe('<html>');
    expect(await (await checkMetadataIssuer(url, new Response('null', { status: 200 }))).text()).toBe('null');
    const failed = json({ issuer: 'https://evil.example' }, 404);
    expect(await checkMetadataIssuer(url, failed)).toBe(failed);
    const other = json({ issuer: 'https://evil.example' });
    expect(await checkMetadataIssuer(new URL('https://as.example/.well-known/oauth-protected-resource'), other)).toBe(other);
  });

  it('MetadataIssuerMismatch names itself', () => {
    expect(new MetadataIssuerMismatch('m').name).toBe('MetadataIssuerMismatch');
  });
});

describe('grantedScopes (SEP-2350)', () => {
  it('a step-up asks for what was granted and asked before, then what is challenged, once each', () => {
    const scopes = grantedScopes();
    scopes.note('redirectToAuthorization', new URL('https://as.example/authorize?scope=read%20list'));
    scopes.note('saveTokens', { access_token: 'x', scope: 'read  write' });
    expect(scopes.with('write admin')).toBe('read list write admin');
  });

  it('nothing noted, or no challenged scope, asks for nothing more', () => {
    expect(grantedScopes().with('admin')).toBeUndefined();
    const scopes = grantedScopes();
    scopes.note('saveTokens', { scope: 'read' });
    expect(scopes.with(undefined)).toBeUndefined();
    expect(scopes.with('')).toBe('read');
  });

  it('only saveTokens scopes and authorization URLs count, and at most 64 scopes are kept', () => {
    const scopes = grantedScopes();
    scopes.note('saveClientInformation', { scope: 'ignored' });
    scopes.note('saveTokens', 'scope=ignored');
    scopes.note('saveTokens', { scope: 5 });
    scopes.note('redirectToAuthorization', 'https://as.example/authorize?scope=ignored');
    scopes.note('redirectToAuthorization', new URL('https://as.example/authorize'));
    expect(scopes.with('a')).toBeUndefined();
    scopes.note('saveTokens', { scope: Array.from({ length: 70 }, (_, i) => `s${i}`).join(' ') });
    expect(scopes.with('z')?.split(' ')).toEqual([...Array.from({ length: 64 }, (_, i) => `s${i}`), 'z']);
  });
});
