/**
 * Command-line parsing for `rulvar-mcp`. Hand-written rather than node:util parseArgs so that
 * a malformed `--header` is refused without ever quoting the argument: it may hold a secret.
 */
import { usageError } from './exit.js';
import { tokenize } from './tokenize.js';

export type PresetChoice = 'strict' | 'standard' | 'open' | 'all';

export type Target = { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] } | { readonly kind: 'url'; readonly url: string };

export interface Bounds {
  readonly connectMs: number;
  readonly listMs: number;
  readonly discoveryMs: number;
  readonly callMs: number;
  readonly maxTools: number;
  readonly maxPages: number;
  readonly maxSchemaBytes: number;
}

export interface InspectOptions {
  readonly target: Target;
  /** Name and value; only the name is ever printed. */
  readonly headers: readonly (readonly [string, string])[];
  readonly riskFile: string | undefined;
  readonly preset: PresetChoice;
  readonly json: boolean;
  readonly attest: string | undefined;
  readonly bounds: Bounds;
}

export type Command = { readonly kind: 'help' } | ({ readonly kind: 'inspect' } & InspectOptions) | ({ readonly kind: 'check'; readonly pins: readonly string[] } & InspectOptions);

/**
 * Generous enough for real servers, small enough that a runaway one is stopped. The handshake
 * includes starting the server: a cold `npx -y` start took 3-18 s here (docs/cli.md), so a
 * minute leaves margin on a loaded machine. The sweep's bound covers that handshake too
 * (mcp()'s discoveryMs does), so it is the handshake's plus half a minute of listing.
 */
export const DEFAULT_BOUNDS: Bounds = {
  connectMs: 60_000,
  listMs: 10_000,
  discoveryMs: 90_000,
  callMs: 30_000,
  maxTools: 1_000,
  maxPages: 100,
  maxSchemaBytes: 65_536,
};

const BOUND_FLAGS: Record<string, keyof Bounds> = {
  '--connect-ms': 'connectMs',
  '--list-ms': 'listMs',
  '--timeout-ms': 'discoveryMs',
  '--call-ms': 'callMs',
  '--max-tools': 'maxTools',
  '--max-pages': 'maxPages',
  '--max-schema-bytes': 'maxSchemaBytes',
};

const PRESETS: readonly PresetChoice[] = ['strict', 'standard', 'open', 'all'];

export function parseArgs(argv: readonly string[]): Command {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') return { kind: 'help' };
  if (verb !== 'inspect' && verb !== 'check') throw usageError(`unknown command ${JSON.stringify(verb)} (expected inspect or check)`);

  const positional: string[] = [];
  const headers: [string, string][] = [];
  const bounds: Record<keyof Bounds, number> = { ...DEFAULT_BOUNDS };
  let target: Target | undefined;
  let riskFile: string | undefined;
  let preset: PresetChoice = 'all';
  let json = false;
  let attest: string | undefined;

  for (let i = 0; i < rest.length; i += 1) {
    const raw = rest[i] as string;
    if (raw === '--help' || raw === '-h') return { kind: 'help' };
    if (!raw.startsWith('-')) {
      positional.push(raw);
      continue;
    }
    // `--flag=value` and `--flag value` are the same; the value is taken verbatim either way.
    const eq = raw.indexOf('=');
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = rest[i + 1];
      if (next === undefined) throw usageError(`${flag} needs a value`);
      i += 1;
      return next;
    };
    if (flag === '--json') json = true;
    else if (flag === '--stdio' || flag === '--url') {
      if (target !== undefined) throw usageError('give exactly one of --stdio and --url');
      target = flag === '--stdio' ? stdioTarget(value()) : urlTarget(value());
    } else if (flag === '--header' || flag === '-H') headers.push(parseHeader(value()));
    else if (flag === '--risk') riskFile = value();
    else if (flag === '--attest') attest = value();
    else if (flag === '--preset') preset = parsePreset(value());
    else if (Object.hasOwn(BOUND_FLAGS, flag)) bounds[BOUND_FLAGS[flag] as keyof Bounds] = parsePositive(flag, value());
    else throw usageError(`unknown option ${flag}`);
  }

  if (target === undefined) throw usageError('give a server: --stdio "command args" or --url URL');
  if (headers.length > 0 && target.kind !== 'url') throw usageError('--header applies to --url servers only');
  const options: InspectOptions = { target, headers, riskFile, preset, json, attest, bounds };
  if (verb === 'inspect') {
    if (positional.length > 0) throw usageError(`inspect takes no file arguments (got ${positional.length})`);
    return { kind: 'inspect', ...options };
  }
  if (positional.length === 0) throw usageError('check needs at least one attestation FILE');
  if (attest !== undefined) throw usageError('--attest belongs to inspect, not check');
  return { kind: 'check', pins: positional, ...options };
}

function stdioTarget(line: string): Target {
  const [command, ...args] = tokenize(line);
  if (command === undefined) throw usageError('--stdio needs a command');
  return { kind: 'stdio', command, args };
}

function urlTarget(text: string): Target {
  // A URL may carry credentials in its query or userinfo, so a bad one is not quoted back.
  if (!URL.canParse(text)) throw usageError('--url is not a valid URL');
  const { protocol } = new URL(text);
  if (protocol !== 'http:' && protocol !== 'https:') throw usageError('--url must be http: or https:');
  return { kind: 'url', url: text };
}

function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (name === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw usageError('--header expects NAME:VALUE with a valid header NAME');
  return [name, text.slice(colon + 1).trim()];
}

function parsePreset(text: string): PresetChoice {
  const found = PRESETS.find((p) => p === text);
  if (found === undefined) throw usageError(`--preset must be one of ${PRESETS.join(', ')}`);
  return found;
}

function parsePositive(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n <= 0) throw usageError(`${flag} must be a positive integer (got ${JSON.stringify(text)})`);
  return n;
}
