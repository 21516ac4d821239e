/**
 * One bounded use of a pooled client: every operation of the store is a single statement (or
 * the transaction of a batch too large for one) run on a client checked out for it, and the whole of it (waiting for the pool, connecting, the
 * answer) has `timeoutMs`. Past it the operation fails `journal.unavailable` and the client is
 * destroyed rather than handed back, so a hung server or a pool that never frees a client
 * costs the caller a bounded wait, never a hang. Whatever Postgres or the driver says goes
 * into messages only after the pool's password and connection string are scrubbed out.
 */
import { describeCause, RulvarError, withSafeCause } from '../core/errors.js';
import { withDeadline } from '../core/async.js';
import { Redactor } from '../core/secrets/redactor.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';

export interface Session {
  /** Runs `work` on a checked-out client within the bound; `what` names the operation in messages. */
  use<T>(what: string, work: (client: PostgresPoolClient) => Promise<T>): Promise<T>;
  /** `text` with every credential of the pool's configuration taken out. */
  clean(text: string): string;
  readonly timeoutMs: number;
}

export function session(pool: PostgresPool, timeoutMs: number): Session {
  const clean = credentialScrubber(pool);
  const unavailable = (what: string, cause?: unknown) =>
    withSafeCause(new RulvarError('journal.unavailable', cause === undefined ? `postgresJournal: ${what} got no answer from Postgres within ${timeoutMs} ms` : `postgresJournal: ${what} failed (${describeCause(cause)})`, cause === undefined ? undefined : { cause }), clean);

  return {
    timeoutMs,
    clean,
    async use(what, work) {
      let client: PostgresPoolClient | undefined;
      let timedOut = false;
      let broken = false;
      const onError = () => {
        broken = true;
      };
      const attempt = async () => {
        const checkedOut = await pool.connect();
        if (timedOut) {
          discard(checkedOut, onError);
          return undefined as never;
        }
        client = checkedOut;
        checkedOut.on('error', onError);
        return work(checkedOut);
      };
      try {
        return await withDeadline(attempt(), timeoutMs, () => {
          timedOut = true;
          return unavailable(what);
        });
      } catch (error) {
        if (RulvarError.is(error)) throw error;
        if (!isStatementError(error)) broken = true;
        throw unavailable(what, error);
      } finally {
        if (client !== undefined) {
          if (timedOut || broken) discard(client, onError);
          else {
            client.removeListener('error', onError);
            client.release();
          }
        }
      }
    },
  };
}

/**
 * Destroys a client's connection. Its error listener stays: a connection being torn down can
 * still report a socket error, and a client emitting one with no listener throws it.
 */
function discard(client: PostgresPoolClient, onError: (error: Error) => void): void {
  client.on('error', onError);
  try {
    client.release(true);
  } catch {
    // Released already (the pool throws on a second release): nothing is left to free.
  }
}

/**
 * An error the server sent for one statement (a SQLSTATE and severity ERROR) leaves the
 * connection usable; anything else (a socket error, a FATAL, the driver's own) does not.
 */
export function isStatementError(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && severity === 'ERROR';
}

/** The SQLSTATE of a server's error, if it is one. */
export function sqlState(error: unknown): string | undefined {
  return isStatementError(error) ? (error as { code: string }).code : undefined;
}

/** Any `scheme://user:password@` or `password=…` in a message, whatever pool it came from. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi;
const PASSWORD_SETTING = /(password\s*=\s*)('[^']*'|\S+)/gi;

function credentialScrubber(pool: PostgresPool): (text: string) => string {
  const redactor = new Redactor();
  const secrets: [string, string][] = [];
  const { password, connectionString } = pool.options ?? {};
  if (typeof password === 'string') secrets.push(['password', password]);
  if (typeof connectionString === 'string') {
    secrets.push(['connectionString', connectionString]);
    try {
      const url = new URL(connectionString);
      if (url.password !== '') secrets.push(['urlPassword', decodeURIComponent(url.password)], ['urlPasswordEncoded', url.password]);
    } catch {
      // Not a URL (a libpq keyword string): PASSWORD_SETTING covers its password.
    }
  }
  redactor.remember(secrets);
  return (text) => redactor.text(text.replace(URL_CREDENTIALS, '$1[redacted]@').replace(PASSWORD_SETTING, '$1[redacted]'));
}
