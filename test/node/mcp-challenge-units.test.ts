/**
 * Unit tests for src/core/mcp/challenge.ts: what a 401 or 403 from an MCP endpoint says
 * about itself. The `WWW-Authenticate` parser (first challenge only, token and quoted values,
 * names without regard to case, the first of a repeated parameter) and the refusal messages
 * the host reads (which parameters are named and in what order, values and bodies cut, the
 * hint for each way a refusal can end). The OAuth suites see these one challenge per server.
 */
import { describe, expect, it } from 'vitest';
import {
  describeRefusal,
  describeRefusedStepUp,
  describeRefusedToken,
  HttpAuthError,
  parseChallenge,
} from '../../src/core/mcp/challenge.js';

const params = (header: string | null) => {
  const challenge = parseChallenge(header);
  return challenge && { scheme: challenge.scheme, params: Object.fromEntries(challenge.params) };
};

describe('parseChallenge', () => {
  it('a scheme alone, or none at all', () => {
    expect(params('Bearer')).toEqual({ scheme: 'Bearer', params: {} });
    expect(params('  Bearer  ')).toEqual({ scheme: 'Bearer', params: {} });
    expect(params(null)).toBeUndefined();
    expect(params('')).toBeUndefined();
    expect(params('"quoted"')).toBeUndefined();
    expect(params(', Bearer')).toBeUndefined();
  });

  it('token and quoted values, escapes undone, names lower-cased, spaces around = allowed', () => {
    expect(params('Bearer realm="mcp", Scope = "a b", error=invalid_token, RESOURCE_METADATA="https://h/.well-known/x"')).toEqual({
      scheme: 'Bearer',
      params: { realm: 'mcp', scope: 'a b', error: 'invalid_token', resource_metadata: 'https://h/.well-known/x' },
    });
    expect(params('Bearer realm="say \\"hi\\" \\\\ there"')?.params).toEqual({ realm: 'say "hi" \\ there' });
    expect(params('Bearer realm=""')?.params).toEqual({ realm: '' });
    expect(params('Bearer a.b-c_d=1')?.params).toEqual({ 'a.b-c_d': '1' });
  });

  it('every token character may start a scheme', () => {
    expect(params("!#$%&'*+.^_`|~-Az09 a=1")).toEqual({ scheme: "!#$%&'*+.^_`|~-Az09", params: { a: '1' } });
  });

  it('the first of a repeated parameter wins; a bare token starts the next challenge, which is not read', () => {
    expect(params('Bearer scope="first", scope="second"')?.params).toEqual({ scope: 'first' });
    expect(params('Bearer realm="a", Basic realm="b"')).toEqual({ scheme: 'Bearer', params: { realm: 'a' } });
    expect(params('Bearer realm="a" error="x"')?.params).toEqual({ realm: 'a', error: 'x' });
  });

  it('an unterminated quote is read as an empty value, and nothing after it is read', () => {
    expect(params('Bearer realm="a", scope="never closed, error=x')?.params).toEqual({ realm: 'a', scope: '' });
  });

  it('a long hostile header is read in linear time', () => {
    const header = `Bearer ${'a=b, '.repeat(50_000)}realm="${'\\"'.repeat(50_000)}`;
    const started = performance.now();
    expect(parseChallenge(header)?.params.get('a')).toBe('b');
    // A hang check, not a speed claim: 50,000 parameters, then a value of 50,000 escapes never closed.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('the refusal messages', () => {
  const header = 'Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example/rm", realm="mcp", error_description="secret words"';

  it('names realm, resource_metadata, scope and error in that order, never free text', () => {
    expect(describeRefusal(403, header, false, '')).toBe(
      'the server answered 403 Forbidden, challenge: Bearer realm="mcp", resource_metadata="https://mcp.example/rm", scope="files:write", error="insufficient_scope"; configure http.authProvider (OAuth) or send credentials with http.headers',
    );
  });

  it('a 401 says Unauthorized; any other status is read as a 403', () => {
    expect(describeRefusal(401, 'Bearer', false, '')).toBe(
      'the server answered 401 Unauthorized, challenge: Bearer; configure http.authProvider (OAuth) or send credentials with http.headers',
    );
    expect(describeRefusal(418, 'Bearer', false, '')).toMatch(/^the server answered 403 Forbidden,/);
  });

  it('no challenge says so, with the body quoted trimmed; a blank body adds nothing', () => {
    expect(describeRefusal(401, null, true, '  go away \n')).toBe(
      'the server answered 401 Unauthorized with no WWW-Authenticate challenge (the server said: go away); the http.authProvider flow does not apply to this refusal',
    );
    expect(describeRefusal(401, null, true, ' \n ')).toBe(
      'the server answered 401 Unauthorized with no WWW-Authenticate challenge; the http.authProvider flow does not apply to this refusal',
    );
  });

  it('values, schemes and bodies past 200 characters are cut with an ellipsis; 200 are kept', () => {
    const long = 'v'.repeat(201);
    const message = describeRefusal(401, `${'S'.repeat(201)} realm="${long}"`, false, 'b'.repeat(201));
    expect(message).toContain(`challenge: ${'S'.repeat(200)}… realm="${'v'.repeat(200)}…"`);
    expect(message).toContain(`(the server said: ${'b'.repeat(200)}…)`);
    expect(describeRefusal(401, `Bearer realm="${'v'.repeat(200)}"`, false, '')).toContain(`realm="${'v'.repeat(200)}";`);
  });

  it('a refused fresh token and an impossible step-up each say why the flow was not run again', () => {
    expect(describeRefusedToken('Bearer error="invalid_token"', 'wrong audience')).toBe(
      'the server answered 401 Unauthorized, challenge: Bearer error="invalid_token" (the server said: wrong audience); it refused the token the http.authProvider flow had just obtained, so the flow was not run again',
    );
    expect(describeRefusedStepUp(403, 'Bearer scope="admin"', 'the new token still lacks the scope')).toBe(
      'the server answered 403 Forbidden, challenge: Bearer scope="admin"; the new token still lacks the scope, so the flow was not run again',
    );
  });

  it('HttpAuthError carries its status and its name', () => {
    const error = new HttpAuthError(403, 'refused');
    expect([error.name, error.status, error.message, error instanceof Error]).toEqual(['HttpAuthError', 403, 'refused', true]);
  });
});
