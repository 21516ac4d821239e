/**
 * A fixed-size stand-in for a pagination cursor, for the sweep's visited-cursor guard.
 * Cursors come from the server and may be megabytes long; a guard that remembered each one
 * in full would hold (pages × cursor size) for as long as the sweep runs. It remembers this
 * instead: at most 65 characters per page, whatever the server sends.
 */

/** Cursors up to this long are their own key: no longer than a digest, and free to compute. */
const VERBATIM_MAX = 64;

/**
 * Equal keys for equal cursors, different keys for different ones (up to SHA-256
 * collisions). Short cursors, the usual kind, skip hashing: a digest is an asynchronous
 * round trip per page, which would slow every sweep down for the sake of hostile ones. The
 * first character keeps the two kinds apart, so a short cursor can never pass for a digest.
 */
export async function cursorKey(cursor: string): Promise<string> {
  if (cursor.length <= VERBATIM_MAX) return `=${cursor}`;
  // The UTF-16 code units, not UTF-8: encoding maps every lone surrogate to U+FFFD, so two
  // different cursors would share one digest.
  const units = new Uint16Array(cursor.length);
  for (let i = 0; i < cursor.length; i += 1) units[i] = cursor.charCodeAt(i);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', units));
  let hex = '#';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
