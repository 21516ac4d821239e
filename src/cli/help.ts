/** The --help text: the one place usage and exit codes are spelled out for the terminal. */
import { DEFAULT_BOUNDS } from './args.js';

export const HELP = `rulvar-mcp: inspect an MCP server as @rulvar/core would import it

Usage:
  rulvar-mcp inspect (--stdio "CMD ARGS" | --url URL) [options]
  rulvar-mcp check FILE... (--stdio "CMD ARGS" | --url URL) [options]

Server:
  --stdio "CMD ARGS"      spawn a stdio server; split with shell-like quoting, no shell run
  --url URL               a streamable-http server
  -H, --header NAME:VALUE an HTTP header (repeatable); values are never printed

Inspect:
  --risk FILE             JSON map of original tool name to risk label (read, write,
                          network, execute, destructive)
  --preset P              strict | standard | open | all (default all): verdict columns
  --json                  print one JSON document instead of the table (check: the
                          per-pin results)
  --attest FILE           write an attestation pin of the toolset (JSON)

Bounds (defaults in brackets):
  --connect-ms N          the handshake, starting the server included [${DEFAULT_BOUNDS.connectMs}]
  --list-ms N             one tools/list page [${DEFAULT_BOUNDS.listMs}]
  --timeout-ms N          the whole sweep, the handshake included [${DEFAULT_BOUNDS.discoveryMs}]
  --call-ms N             one tools/call [${DEFAULT_BOUNDS.callMs}]
  --max-tools N           tools the sweep may accumulate [${DEFAULT_BOUNDS.maxTools}]
  --max-pages N           tools/list pages per sweep [${DEFAULT_BOUNDS.maxPages}]
  --max-schema-bytes N    per tool, input + output schema; over it the row is refused
                          [${DEFAULT_BOUNDS.maxSchemaBytes}]

What a server sends (names, errors, its stderr) is shown with every control and
format character escaped (\\x1b, \\u202e); --json escapes them as JSON does.

Exit codes:
  0  ok (check: every pin matches)
  1  check: the server drifted from a pin (changed, missing, unexpected tools named)
  2  usage error (bad flags, unreadable --risk file, a value mcp() refuses)
  3  connection or sweep failure (the typed error code is printed; a bound
     names the flag to raise)
  4  a pin file is unreadable or not an attestation
  5  a tool was refused admission: the toolset has no hashes and cannot be pinned
  70 internal error (a bug in rulvar-mcp)
`;
