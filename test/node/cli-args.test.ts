/**
 * rulvar-mcp's command line in process (docs/cli.md "Usage"): each command and option parsed
 * into what inspect and check are given, every usage error with the message the guide shows,
 * and no header value or URL ever quoted back (either may hold a secret).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, parseArgs, type Command } from '../../src/cli/args.js';
import { CliExit, EXIT } from '../../src/cli/exit.js';

const SERVER = ['--stdio', 'node server.js --flag'];

/** The usage error parseArgs throws for `argv`, as [exit code, message]. */
function refusal(argv: readonly string[]): [number, string] {
  try {
    parseArgs(argv);
  } catch (error) {
    if (error instanceof CliExit) return [error.exitCode, error.message];
    throw error;
  }
  throw new Error(`parsed: ${argv.join(' ')}`);
}

describe('parseArgs: what each command and option becomes', () => {
  it('no command, help, --help and -h (anywhere) are help', () => {
    for (const argv of [[], ['help'], ['--help'], ['-h'], ['inspect', '--help'], ['check', ...SERVER, '-h', '--nope']]) {
      expect(parseArgs(argv)).toEqual({ kind: 'help' });
    }
  });

  it('inspect with a stdio server and nothing else takes every default', () => {
    expect(parseArgs(['inspect', ...SERVER])).toEqual({
      kind: 'inspect',
      target: { kind: 'stdio', command: 'node', args: ['server.js', '--flag'] },
      headers: [],
      riskFile: undefined,
      preset: 'all',
      json: false,
      attest: undefined,
      bounds: DEFAULT_BOUNDS,
    } satisfies Command);
  });

  it('every option, as --flag value and as --flag=value, lands where it belongs', () => {
    const spaced = ['--url', 'https://h.example/mcp?k=1', '-H', 'X-Key: s3cret : v', '--header', 'b:', '--risk', 'r.json', '--preset', 'strict', '--json', '--attest', 'pin.json'];
    const bounds = ['--connect-ms', '1', '--list-ms', '2', '--timeout-ms', '3', '--call-ms', '4', '--max-tools', '5', '--max-pages', '6', '--max-schema-bytes', '7'];
    const expected = {
      kind: 'inspect',
      target: { kind: 'url', url: 'https://h.example/mcp?k=1' },
      headers: [
        ['X-Key', 's3cret : v'],
        ['b', ''],
      ],
      riskFile: 'r.json',
      preset: 'strict',
      json: true,
      attest: 'pin.json',
      bounds: { connectMs: 1, listMs: 2, discoveryMs: 3, callMs: 4, maxTools: 5, maxPages: 6, maxSchemaBytes: 7 },
    };
    expect(parseArgs(['inspect', ...spaced, ...bounds])).toEqual(expected);
    const joined = (argv: string[]) => argv.flatMap((a, i) => (i % 2 === 0 && a !== '--json' ? [`${a}=${argv[i + 1] ?? ''}`] : []));
    const inline = [...joined(spaced.slice(0, 10)), '--json', ...joined(spaced.slice(11)), ...joined(bounds)];
    expect(parseArgs(['inspect', ...inline])).toEqual(expected);
    expect(parseArgs(['inspect', '--url', 'http://127.0.0.1:9/mcp', '-H', ' X-Key : v '])).toMatchObject({ target: { kind: 'url', url: 'http://127.0.0.1:9/mcp' }, headers: [['X-Key', 'v']] });
    expect(parseArgs(['inspect', '--stdio=a=b c', '--preset=open'])).toMatchObject({ target: { kind: 'stdio', command: 'a=b', args: ['c'] }, preset: 'open' });
  });

  it('check takes its pins from the positional arguments, in order, around the options', () => {
    const command = parseArgs(['check', 'a.json', ...SERVER, 'b.json', '--preset', 'open']);
    expect(command).toMatchObject({ kind: 'check', pins: ['a.json', 'b.json'], preset: 'open', target: { kind: 'stdio', command: 'node' } });
  });

  it('each preset is accepted; a value that starts with a dash is taken verbatim after its flag', () => {
    for (const preset of ['strict', 'standard', 'open', 'all']) expect(parseArgs(['inspect', ...SERVER, '--preset', preset])).toMatchObject({ preset });
    expect(parseArgs(['inspect', ...SERVER, '--risk', '-odd.json'])).toMatchObject({ riskFile: '-odd.json' });
  });
});

describe('parseArgs: every usage error is exit 2 with the message docs/cli.md shows', () => {
  const cases: [string[], string][] = [
    [['run'], 'unknown command "run" (expected inspect or check)'],
    [['inspect'], 'give a server: --stdio "command args" or --url URL'],
    [['inspect', ...SERVER, '--url', 'https://h/'], 'give exactly one of --stdio and --url'],
    [['inspect', '--url', 'https://h/', ...SERVER], 'give exactly one of --stdio and --url'],
    [['inspect', '--stdio', '   '], '--stdio needs a command'],
    [['inspect', '--stdio'], '--stdio needs a value'],
    [['inspect', ...SERVER, '--connect-ms'], '--connect-ms needs a value'],
    [['inspect', ...SERVER, '--bogus', '1'], 'unknown option --bogus'],
    [['inspect', ...SERVER, '--bogus=1'], 'unknown option --bogus'],
    [['inspect', ...SERVER, '--preset', 'lax'], '--preset must be one of strict, standard, open, all'],
    [['inspect', ...SERVER, '-H', 'a:b'], '--header applies to --url servers only'],
    [['inspect', ...SERVER, 'extra.json'], 'inspect takes no file arguments (got 1)'],
    [['check', ...SERVER], 'check needs at least one attestation FILE'],
    [['check', 'a.json', ...SERVER, '--attest', 'out.json'], '--attest belongs to inspect, not check'],
    [['inspect', '--url', 'ftp://h/x'], '--url must be http: or https:'],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.join(' ')}: ${message}`, () => {
      expect(refusal(argv)).toEqual([EXIT.usage, message]);
    });
  }

  it('a bound must be a positive safe integer written in digits; the refusal quotes what was given', () => {
    for (const bad of ['0', '-1', '1.5', '1e3', ' 5', '5 ', '0x10', '', 'abc', '9007199254740993', '+5']) {
      expect(refusal(['inspect', ...SERVER, '--max-tools', bad])).toEqual([EXIT.usage, `--max-tools must be a positive integer (got ${JSON.stringify(bad)})`]);
    }
    expect(parseArgs(['inspect', ...SERVER, '--max-tools', '007'])).toMatchObject({ bounds: { maxTools: 7 } });
    expect(parseArgs(['inspect', ...SERVER, '--call-ms', '9007199254740991'])).toMatchObject({ bounds: { callMs: 9007199254740991 } });
  });

  it('a malformed header or URL is refused without quoting it', () => {
    for (const header of ['X-Token', 'no-colon s3cret-value', ': s3cret-value', 'bad name: s3cret-value', 'ba(d: s3cret-value', ' : s3cret-value']) {
      const [code, message] = refusal(['inspect', '--url', 'https://h/', '--header', header]);
      expect([code, message]).toEqual([EXIT.usage, '--header expects NAME:VALUE with a valid header NAME']);
    }
    expect(refusal(['inspect', '--url', 'not a url s3cret-value'])).toEqual([EXIT.usage, '--url is not a valid URL']);
    expect(refusal(['inspect', '--url', 'file:///s3cret-value'])[1]).not.toContain('s3cret');
  });
});
