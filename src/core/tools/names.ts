/** The final-name rule every tool on the bus obeys, native or imported. */
import { ConfigError } from '../errors.js';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** Throws `tool.invalid_name` naming the tool and where it came from. */
export function assertToolName(name: string, origin: string): void {
  if (isValidToolName(name)) return;
  throw new ConfigError(
    'tool.invalid_name',
    `${origin}: tool name ${quoteName(name)} does not match ${TOOL_NAME_PATTERN.source} ` +
      `(letters, digits, '_' and '-', 1 to 64 characters, after prefixing)`,
  );
}

/** Quotes a name for a message, cut short: a hostile server can send megabyte names. */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}
