#!/usr/bin/env node
/**
 * `rulvar-mcp`: connect to an MCP server the way `mcp()` would, show what a host would import
 * (names, risk, verdicts per preset, schema size, admission, toolset hashes), pin it, and
 * check it against pins later. Exit codes are listed in help.ts and in README's rulvar-mcp section.
 */
import { writeFile } from 'node:fs/promises';
import { attestToolset } from '../node/index.js';
import { parseArgs, type Command } from './args.js';
import { checkPins, readPins, renderPinResults, renderPinResultsJson } from './check.js';
import { CliExit, EXIT, type ExitCode } from './exit.js';
import { HELP } from './help.js';
import { inspect, type Inspection } from './inspect.js';
import { renderJson, renderTable } from './render.js';

async function run(command: Command, out: (text: string) => void): Promise<ExitCode> {
  if (command.kind === 'help') {
    out(HELP);
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
    process.stderr.write(`attestation written to ${command.attest}\n`);
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
  // them from every error it raises (a server echoing a token back included).
  try {
    return await run(parseArgs(argv), (text) => process.stdout.write(text));
  } catch (error) {
    if (error instanceof CliExit) {
      process.stderr.write(`rulvar-mcp: ${error.message}\n`);
      if (error.exitCode === EXIT.usage) process.stderr.write('run rulvar-mcp --help for usage\n');
      return error.exitCode;
    }
    // Not 1 (drift) or 3 (source): a crash must not read as a verdict about the server.
    process.stderr.write(`rulvar-mcp: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.internal;
  }
}

process.exitCode = await main(process.argv.slice(2));
