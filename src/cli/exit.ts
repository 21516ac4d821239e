/**
 * The exit codes `rulvar-mcp` promises (documented in --help and in docs/cli.md), and the one
 * error type that carries a code to main: every failure the CLI reports on purpose is a CliExit,
 * so main can tell a reported failure from a bug.
 */
export const EXIT = {
  ok: 0,
  drift: 1,
  usage: 2,
  source: 3,
  pin: 4,
  refused: 5,
  /** A bug in the CLI itself, never a server's doing (EX_SOFTWARE from sysexits.h). */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliExit extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliExit';
  }
}

export const usageError = (message: string): CliExit => new CliExit(EXIT.usage, message);
