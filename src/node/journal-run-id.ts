/**
 * Which run ids the file journal accepts. A run id becomes a file name in the journal's
 * directory, so it is checked before any file system call: an allowlist rather than a list of
 * dangerous characters, because what is dangerous differs by platform (`/` and NUL on POSIX,
 * `\` and `:` on Windows, control characters in terminals and logs). The engine's default ids
 * (`crypto.randomUUID()`) fit it, as do the usual hand-made ones (`order-42`, `nightly_2024.1`).
 *
 * Not handled: on a case-insensitive file system (macOS and Windows by default) `Run-1` and
 * `run-1` name the same file. `engine.run` then refuses the second with `journal.run_exists`,
 * so the collision is loud rather than a shared journal.
 */
import { ConfigError } from '../core/errors.js';

/** Longest run id, in characters (and bytes: the allowlist is ASCII), well under NAME_MAX (255). */
export const MAX_RUN_ID_LENGTH = 128;

// No leading dot: that rules out `.` and `..` and keeps journals from hiding as dotfiles.
const RUN_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Returns `runId` when it may name a journal file; ConfigError `config.invalid_value` otherwise. */
export function checkRunId(runId: unknown): string {
  if (typeof runId !== 'string' || runId.length === 0) {
    throw new ConfigError('config.invalid_value', 'fileJournal: a run id must be a non-empty string');
  }
  if (runId.length > MAX_RUN_ID_LENGTH) {
    throw new ConfigError('config.invalid_value', `fileJournal: a run id has at most ${MAX_RUN_ID_LENGTH} characters, this one has ${runId.length}`);
  }
  if (!RUN_ID.test(runId)) {
    // JSON.stringify escapes control characters, so the message cannot carry them either.
    throw new ConfigError(
      'config.invalid_value',
      `fileJournal: run id ${JSON.stringify(runId)} may hold only letters, digits, '.', '_' and '-', and may not start with '.'`,
    );
  }
  return runId;
}

/** Whether `name` is a run id the journal would take (runs() lists only those). */
export function isRunId(name: string): boolean {
  return name.length > 0 && name.length <= MAX_RUN_ID_LENGTH && RUN_ID.test(name);
}
