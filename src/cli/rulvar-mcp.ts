#!/usr/bin/env node
/**
 * `rulvar-mcp`: connect to an MCP server the way `mcp()` would, show what a host would import
 * (names, risk, verdicts per preset, schema size, admission, toolset hashes), pin it, and
 * check it against pins later. Exit codes are listed in help.ts and in docs/cli.md.
 */
import { writeFile } from 'node:fs/promises';
import { attestToolset } from '../node/index.js';
import { parseArgs, type Command } from './args.js';
import { checkPins, readPins, renderPinResults, renderPinResultsJson } from './check.js';
import { CliExit, EXIT, type ExitCode } from './exit.js';
import { HELP } from './help.js';
import { inspect, type Inspection } from './inspect.js';
import { renderJson, renderTable } from './render.js';
import { printableLines } from './terminal.js';

/** Where output goes: a JSON document as printableJson made it, or lines printed escaped. */
type Out = (output: string | readonly string[]) => void;

async function run(command: Command, out: Out): Promise<ExitCode> {
  if (command.kind === 'help') {
    out(HELP.trimEnd().split('\n'));
    return EXIT.ok;
  }
  if (command.kind === 'check') {
    const pins = await readPins(command.pins);
    const resolved = requireResolved(await inspect(command));
    const results = await checkPins(resolved, pins);
    out(command.json ? renderPinResultsJson(results) : renderPinResults(results));
    return results.some((r) => r.drift !== undefined) ? EXIT.drift : EXIT.ok;
  }
  const inspection = await inspect(command);
  out(command.json ? renderJson(inspection, command.preset) : renderTable(inspection, command.preset));
  if (command.attest !== undefined) {
    const pin = await attestToolset(requireResolved(inspection));
    await writeFile(command.attest, `${JSON.stringify(pin, null, 2)}\n`).catch((error: unknown) => {
      throw new CliExit(EXIT.usage, `--attest ${command.attest}: ${error instanceof Error ? error.message : String(error)}`);
    });
    process.stderr.write(printableLines([`attestation written to ${command.attest}`]));
  }
  return inspection.resolved === undefined ? EXIT.refused : EXIT.ok;
}

function requireResolved(inspection: Inspection): NonNullable<Inspection['resolved']> {
  if (inspection.resolved !== undefined) return inspection.resolved;
  const refused = inspection.tools.filter((t) => t.admission.status === 'refused').map((t) => t.name);
  throw new CliExit(EXIT.refused, `the toolset cannot be resolved: refused admission: ${refused.join(', ')}`);
}

async function main(argv: readonly string[]): Promise<ExitCode> {
  // Header values reach mcp() and nothing else: the CLI never formats one, and mcp() scrubs
  // them from every error it raises (a server echoing a token back included). What a server
  // sent reaches the terminal only through terminal.ts.
  try {
    return await run(parseArgs(argv), (output) => process.stdout.write(typeof output === 'string' ? output : printableLines(output)));
  } catch (error) {
    if (error instanceof CliExit) {
      // One line, whatever line breaks the server put in its part of the message.
      process.stderr.write(printableLines([`rulvar-mcp: ${error.message}`]));
      if (error.exitCode === EXIT.usage) process.stderr.write('run rulvar-mcp --help for usage\n');
      return error.exitCode;
    }
    // Not 1 (drift) or 3 (source): a crash must not read as a verdict about the server.
    const report = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(printableLines(`rulvar-mcp: internal error: ${report}`.split('\n')));
    return EXIT.internal;
  }
}

process.exitCode = await main(process.argv.slice(2));
