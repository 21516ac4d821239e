/**
 * What a 401 or 403 from the MCP endpoint says about itself, for the host to act on: the
 * `WWW-Authenticate` challenge (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1). Only the
 * parameters a host needs to configure authorization are named; free text such as
 * `error_description` is left out of the challenge. The body is quoted, cut, as the SDK's own
 * error did; like every error message it passes the source's Redactor, which removes a
 * credential the server echoed.
 */

/** The challenge parameters worth naming, in the order they are named. */
const NAMED = ['realm', 'resource_metadata', 'scope', 'error'] as const;
/** A parameter value longer than this is cut: it informs, it is not evidence. */
const MAX_VALUE = 200;

/**
 * The MCP endpoint refused the request for want of (sufficient) authorization. Nothing about
 * the session is wrong, so it is classified as one rejected request.
 */
export class HttpAuthError extends Error {
  override readonly name = 'HttpAuthError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Challenge {
  readonly scheme: string;
  readonly params: ReadonlyMap<string, string>;
}

/** The first challenge of a `WWW-Authenticate` value (a server lists its preferred one first). */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (header === null) return undefined;
  const scheme = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)/.exec(header);
  if (scheme === null) return undefined;
  const params = new Map<string, string>();
  const rest = header.slice(scheme[0].length);
  // name=token or name="quoted \" string", comma separated; a bare token starts the next challenge.
  // A match holds at least a name and its `=`, so the sticky search always moves on.
  const pair = /\s*,?\s*([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"]*)/y;
  let match: RegExpExecArray | null;
  while ((match = pair.exec(rest)) !== null) {
    const name = match[1]!.toLowerCase();
    const raw = match[2]!;
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    if (!params.has(name)) params.set(name, value);
  }
  return { scheme: scheme[1]!, params };
}

/** A message naming the status, the challenge's scheme and parameters, and the server's body. */
export function describeRefusal(status: number, header: string | null, hasProvider: boolean, body: string): string {
  const hint = hasProvider
    ? 'the http.authProvider flow does not apply to this refusal'
    : 'configure http.authProvider (OAuth) or send credentials with http.headers';
  return describe(status, header, body, hint);
}

/**
 * The MCP endpoint refused the token an authorization flow had just obtained (a token issued
 * for another resource, say): the flow is not run again, and the challenge says why.
 */
export function describeRefusedToken(header: string | null, body: string): string {
  return describe(401, header, body, 'it refused the token the http.authProvider flow had just obtained, so the flow was not run again');
}

/**
 * An http.authProvider step-up that cannot succeed: the server still refuses (`why` says how),
 * and its last challenge says what it wants.
 */
export function describeRefusedStepUp(status: number, header: string | null, why: string): string {
  return describe(status, header, '', `${why}, so the flow was not run again`);
}

function describe(status: number, header: string | null, body: string, hint: string): string {
  const challenge = parseChallenge(header);
  const what = status === 401 ? '401 Unauthorized' : '403 Forbidden';
  const said = body.trim() === '' ? '' : ` (the server said: ${cut(body.trim())})`;
  if (challenge === undefined) return `the server answered ${what} with no WWW-Authenticate challenge${said}; ${hint}`;
  const named = NAMED.filter((name) => challenge.params.has(name)).map(
    (name) => `${name}=${JSON.stringify(cut(challenge.params.get(name)!))}`,
  );
  const params = named.length === 0 ? '' : ` ${named.join(', ')}`;
  return `the server answered ${what}, challenge: ${cut(challenge.scheme)}${params}${said}; ${hint}`;
}

function cut(value: string): string {
  return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
}
