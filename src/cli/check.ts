/**
 * `check`: compare a fresh inspection with attestation pins. Every pin is read and shape-checked
 * (by format) before the server is contacted, so a typo in a file name costs no connection.
 */
import { readFile } from 'node:fs/promises';
import { ATTESTATION_FORMAT, checkToolsetAttestation, ToolsetAttestationError, type ResolvedToolset, type ToolsetAttestation } from '../node/index.js';
import { CliExit, EXIT } from './exit.js';
import { printableJson } from './terminal.js';

export interface Pin {
  readonly file: string;
  readonly attestation: ToolsetAttestation;
}

export interface PinResult {
  readonly file: string;
  /** Undefined when the toolset matches the pin. */
  readonly drift: ToolsetAttestationError | undefined;
}

export async function readPins(files: readonly string[]): Promise<Pin[]> {
  return Promise.all(
    files.map(async (file) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        throw new CliExit(EXIT.pin, `${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
      // The full shape check is checkToolsetAttestation's; the format alone catches a wrong file.
      if ((parsed as { format?: unknown } | null)?.format !== ATTESTATION_FORMAT) {
        throw new CliExit(EXIT.pin, `${file}: not a toolset attestation ('format' is not '${ATTESTATION_FORMAT}')`);
      }
      return { file, attestation: parsed as ToolsetAttestation };
    }),
  );
}

export async function checkPins(resolved: ResolvedToolset, pins: readonly Pin[]): Promise<PinResult[]> {
  const results: PinResult[] = [];
  for (const { file, attestation } of pins) {
    try {
      await checkToolsetAttestation(resolved, attestation);
      results.push({ file, drift: undefined });
    } catch (error) {
      if (error instanceof ToolsetAttestationError) results.push({ file, drift: error });
      // Anything else is a pin that is not an attestation (config.invalid_value).
      else throw new CliExit(EXIT.pin, `${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return results;
}

export function renderPinResultsJson(results: readonly PinResult[]): string {
  const document = results.map(({ file, drift }) => ({
    file,
    status: drift === undefined ? 'ok' : 'drifted',
    changed: drift?.changed ?? [],
    missing: drift?.missing ?? [],
    unexpected: drift?.unexpected ?? [],
  }));
  return printableJson(`${JSON.stringify(document, null, 2)}\n`);
}

/** As lines, to be printed through printableLines. */
export function renderPinResults(results: readonly PinResult[]): string[] {
  const lines: string[] = [];
  for (const { file, drift } of results) {
    if (drift === undefined) {
      lines.push(`${file}: ok`);
      continue;
    }
    lines.push(`${file}: drifted`);
    for (const c of drift.changed) lines.push(`  changed     ${c.name} (${[c.contract ? 'contract' : '', c.authority ? 'authority' : ''].filter(Boolean).join(', ')})`);
    for (const name of drift.missing) lines.push(`  missing     ${name}`);
    for (const name of drift.unexpected) lines.push(`  unexpected  ${name}`);
  }
  return lines;
}
