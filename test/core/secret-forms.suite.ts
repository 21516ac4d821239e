/**
 * The forms a header value is searched in, and the history of values a source remembers
 * (src/core/secrets/: redactor.ts, forms.ts, scan.ts), each pinned by what a server can
 * send back: a value rotated out of the hook, many header names, keys of structured output,
 * the halves of `Basic base64(user:pass)`, base64 at every offset, JSON escaping with `\/`,
 * short values, a cut that falls 4 characters into a secret. Every case is a real source
 * over the in-process wire: the redactor is the same whatever carries the bytes.
 */
import { rpcResult, status, type Reply, type Rule } from '../fixtures/wire-rules.js';
import type { SuiteHarness } from './harness.js';
import { caught, pick, run } from './helpers.js';
import { inProcessWire, wiresOf, type Wire } from './wire.js';

const R = '[redacted]';

/** Distinct, deterministic tokens of [a-z0-9]: no 16 characters in a row shared by two of them. */
function tokens(count: number, length: number, seed: number): string[] {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) >>> 16;
  return Array.from({ length: count }, () => Array.from({ length }, () => alphabet[next() % alphabet.length]).join(''));
}

const text = (value: string): Reply => rpcResult({ content: [{ type: 'text', text: value }] });
const failed = (value: string): Reply => rpcResult({ isError: true, content: [{ type: 'text', text: value }] });
const OK = text('ok');

/** One tools/call of list_notes: `before` runs first (to rotate what the hook returns), `reply` answers it. */
interface Step {
  readonly before?: () => void;
  readonly reply: Reply;
}

/**
 * A source whose hook returns `headers()` on every request; each step is one list_notes call
 * answered by its own reply (rule i matches the first tools/call that reaches it, and every
 * earlier rule has already answered one). Returns each call's output.
 */
async function outputs(h: SuiteHarness, headers: () => Record<string, string>, steps: readonly Step[]): Promise<unknown[]> {
  const wire: Wire = wiresOf(h).find((w) => !w.socket) ?? inProcessWire();
  const rules: Rule[] = steps.map((step) => ({ on: 'tools/call', nth: [1], reply: step.reply }));
  const endpoint = await wire.serve('workbench', { rules });
  const source = h.lib.mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers } });
  try {
    const tool = pick(await source.tools(), 'list_notes');
    const seen: unknown[] = [];
    for (const step of steps) {
      step.before?.();
      seen.push((await run(h, tool, {})).output);
    }
    return seen;
  } finally {
    await source.close();
    await endpoint.close();
  }
}

/** The output of one call answered by `reply`. */
const outputOf = async (h: SuiteHarness, headers: () => Record<string, string>, reply: Reply): Promise<unknown> =>
  (await outputs(h, headers, [{ reply }]))[0];

export function secretFormsSuite(h: SuiteHarness): void {
  h.describe('secrets: values a source has sent before', () => historyCases(h));
  h.describe('secrets: the forms of a header value', () => formCases(h));
  h.describe('secrets: what is scrubbed in a tool output', () => outputCases(h));
  h.describe('secrets: matching and replacing', () => scanCases(h));
}

function historyCases(h: SuiteHarness): void {
  h.it('a rotated-out token is scrubbed while it is among the last 16 values retired; the 17th-last is forgotten', async () => {
    // T[0] is sent first, then T[1] … T[17] in turn: the history keeps T[1] … T[16].
    const T = tokens(18, 20, 7);
    let now = 0;
    let request = 0;
    const headers = () => ({ 'x-api-key': T[now] as string, 'x-request-id': `r${(request += 1) % 1000}` });
    const rotations: Step[] = T.slice(1).map((_, i) => ({ before: () => void (now = i + 1), reply: OK }));
    // Many more requests with the same token, each with a short id that changes: neither an
    // unchanged value nor a value too short to be a secret takes a place in the history.
    const steady: Step[] = Array.from({ length: 20 }, () => ({ reply: OK }));
    const echoed = T.map((t, i) => `${i}:${t}`).join(' ');
    const [last] = (await outputs(h, headers, [...rotations, ...steady, { reply: text(echoed) }])).slice(-1);
    // MAX_PREVIOUS bounds the history: the value retired 17 rotations ago is no longer known.
    h.expect(last).toBe(T.map((t, i) => `${i}:${i === 0 ? t : R}`).join(' '));
  });

  h.it('a token sent beside header names invented per call is kept; of those names the latest 79 are known, older ones are not', async () => {
    const KEY = 'k3y-0f-the-api-qq';
    const V = (k: number) => `trace-value-${String(k).padStart(3, '0')}-zq`;
    let k = 0;
    const headers = () => ({ 'x-api-key': KEY, [`x-trace-${k}`]: V(k) });
    const steps: Step[] = Array.from({ length: 100 }, (_, i) => ({ before: () => void (k = i + 1), reply: OK }));
    const echo = `${KEY} 21:${V(21)} 22:${V(22)} 100:${V(100)}`;
    const [last] = (await outputs(h, headers, [...steps, { reply: text(echo) }])).slice(-1);
    // 64 names keep their current value (the key's among them) and the 16 values retired
    // last are kept too: V(22) … V(100). V(21) went out of the history: the bound held.
    h.expect(last).toBe(`${R} 21:${V(21)} 22:${R} 100:${R}`);
  });

  h.it('a value of exactly 6 characters is a secret, also once rotated out; one of 5 is not', async () => {
    let value = 'a1b2c3';
    const [before, after, alone] = await outputs(h, () => ({ 'x-session': value, 'x-short': 'e5f6g' }), [
      { reply: text('was a1b2c3, short e5f6g') },
      { before: () => void (value = 'd4e5f6'), reply: text('was a1b2c3, now d4e5f6, part a1b2c') },
      { reply: text('d4e5f6') },
    ]);
    h.expect(before).toBe(`was ${R}, short e5f6g`);
    h.expect(after).toBe(`was ${R}, now ${R}, part a1b2c`);
    // A text that is nothing but the secret is as long as the shortest needle.
    h.expect(alone).toBe(R);
  });
}

function formCases(h: SuiteHarness): void {
  h.it('the scheme word of `Bearer x` is no secret, also after a leading space; the token is', async () => {
    const A = 'tok-a-7c1e9d2f5b';
    const B = 'tok-b-3a8f0e6d4c';
    const output = await outputOf(h, () => ({ authorization: `Bearer ${A}`, 'x-upstream-auth': ` Bearer ${B}` }), text(`expected Bearer auth, got '${A}' / a bearer scheme, then '${B}'`));
    h.expect(output).toBe(`expected Bearer auth, got '${R}' / a bearer scheme, then '${R}'`);
  });

  h.it('every word of a multi-word value is a secret on its own; words under 6 characters are not', async () => {
    // Two short tokens (each under a window) and a short flag: the first word starts and ends
    // with a letter, but is no scheme word.
    const output = await outputOf(h, () => ({ 'x-keys': 'k9f8e7d6c5b q1w2e3r4t5y ab' }), text('first k9f8e7d6c5b, second q1w2e3r4t5y, a lab'));
    h.expect(output).toBe(`first ${R}, second ${R}, a lab`);
  });

  h.it('base64 of `user:pass` (after `Basic `, or bare with one or two `=`): the pair and each half are secrets', async () => {
    const pairs = ['dev-team-42:hunter2-abcd', 'ops-admin-7:s3cr3t-p4ss', 'svc-user-01:pa55-w0rd-xyz'];
    const encoded = pairs.map((pair) => btoa(pair));
    // One credential each with no '=', one '=' and two '=' of padding.
    h.expect(encoded.map((e) => e.length - e.replace(/=+$/, '').length)).toEqual([0, 1, 2]);
    const headers = () => ({ authorization: `Basic ${encoded[0]}`, 'x-basic-1': encoded[1] as string, 'x-basic-2': encoded[2] as string });
    const words = pairs.flatMap((pair) => pair.split(':'));
    const output = await outputOf(h, headers, text(`${words.join(' | ')} | ${pairs[0]}`));
    h.expect(output).toBe([...words.map(() => R), R].join(' | '));
  });

  h.it('`Basic` with padded base64 (one and two `=`): the pair and each half are secrets', async () => {
    // Words are split at '=', which strips the padding; the halves must still be found.
    const pairs = ['ops-admin-7:s3cr3t-p4ss', 'svc-user-01:pa55-w0rd-xyz'];
    const encoded = pairs.map((pair) => btoa(pair));
    h.expect(encoded.map((e) => e.length - e.replace(/=+$/, '').length)).toEqual([1, 2]);
    const headers = () => ({ authorization: `Basic ${encoded[0]}`, 'proxy-authorization': `Basic ${encoded[1]}` });
    const words = pairs.flatMap((pair) => pair.split(':'));
    const output = await outputOf(h, headers, text(`${words.join(' | ')} | ${pairs[1]}`));
    h.expect(output).toBe([...words.map(() => R), R].join(' | '));
  });

  h.it('base64 inside longer text: a last group holding only the secret is caught too', async () => {
    // Offset 1 with 11 bytes makes 12, whole groups: the last group is the secret's own.
    const ELEVEN = 'k2j4h6g8f0d';
    const inner = btoa(`x${ELEVEN};;;`);
    const output = await outputOf(h, () => ({ 'x-api-key': ELEVEN }), text(inner));
    h.expect(output).toBe(`${inner.slice(0, 4)}${R}${inner.slice(16)}`);
  });

  h.it('a value echoed JSON-escaped, with and without `\\/` for its slashes', async () => {
    const KEY = 'k"9\\z-7q/w1';
    const SLASHY = 'a1b2c3/d4e5f6/g7h8i9/j0k1';
    const escaped = JSON.stringify({ error: `key ${KEY} bad`, php: KEY, token: SLASHY });
    const php = escaped.replace(/\//g, '\\/');
    h.expect(php).toContain('j0k1');
    const [plain, slashed] = await outputs(h, () => ({ 'x-api-key': KEY, authorization: `Bearer ${SLASHY}` }), [{ reply: text(escaped) }, { reply: text(php) }]);
    h.expect(plain).toBe(`{"error":"key ${R} bad","php":"${R}","token":"${R}"}`);
    h.expect(slashed).toBe(`{"error":"key ${R} bad","php":"${R}","token":"${R}"}`);
  });

  h.it('base64 of a value alone (with and without padding) and inside longer text at offsets 0, 1 and 2', async () => {
    const NINE = 'q7w3e9r1t'; // 9 bytes: base64 with no padding
    const TEN = 'z8x6c4v2b0'; // 10 bytes: base64 ending '=='
    const inner = [btoa(`${NINE};x`), btoa(`x${NINE};`), btoa(`xy${NINE};`), btoa(`${TEN};x`)];
    const echo = [btoa(NINE), btoa(TEN), ...inner].join(' ');
    const output = await outputOf(h, () => ({ 'x-api-key': NINE, 'x-other-key': TEN }), text(echo));
    // Only the groups that hold the value's bytes alone are stable, whatever surrounds them.
    const expected = [R, R, `${R}${inner[0]?.slice(12)}`, `${inner[1]?.slice(0, 4)}${R}${inner[1]?.slice(12)}`, `${inner[2]?.slice(0, 4)}${R}${inner[2]?.slice(12)}`, `${R}${inner[3]?.slice(12)}`];
    h.expect(output).toBe(expected.join(' '));
  });

  h.it('a value in no other case than upper, echoed as the whole text', async () => {
    const output = await outputOf(h, () => ({ 'x-api-key': 'qwfpgjluyz' }), text('QWFPGJLUYZ'));
    h.expect(output).toBe(R);
  });

  h.it('a value with a lone surrogate fails as the hook, not as the wire', async () => {
    const wire: Wire = wiresOf(h).find((w) => !w.socket) ?? inProcessWire();
    const endpoint = await wire.serve('workbench');
    const source = h.lib.mcp({ transport: 'streamable-http', url: endpoint.url, http: { ...endpoint.http, headers: () => ({ 'x-api-key': 'abc\ud800defgh' }) } });
    try {
      const error = await caught(() => source.tools());
      h.expect(h.lib.ConfigError.is(error)).toBe(true);
      h.expect((error as { code: string }).code).toBe('http.header_hook');
    } finally {
      await source.close();
      await endpoint.close();
    }
  });
}

function outputCases(h: SuiteHarness): void {
  const KEY = 'q7w3e9r1t5y2u8i0p4';

  h.it('structured output: keys are scrubbed too, and null, numbers and booleans pass untouched', async () => {
    const structuredContent = {
      [`key-${KEY}`]: 1,
      nested: { list: [null, 3, true, `x ${KEY}`, { [KEY]: null }], n: null, zero: 0 },
      plain: 'nothing to see',
    };
    const output = await outputOf(h, () => ({ 'x-api-key': KEY }), rpcResult({ content: [], structuredContent }));
    h.expect(output).toEqual({ [`key-${R}`]: 1, nested: { list: [null, 3, true, `x ${R}`, { [R]: null }], n: null, zero: 0 }, plain: 'nothing to see' });
  });

  h.it('a text result, an isError text, and a text with no secret in it', async () => {
    const [plain, error, clean] = await outputs(h, () => ({ 'x-api-key': KEY }), [
      { reply: text(`echo ${KEY}.`) },
      { reply: failed(`denied for ${KEY}`) },
      { reply: text('nothing secret here at all') },
    ]);
    h.expect(plain).toBe(`echo ${R}.`);
    h.expect(error).toBe(`denied for ${R}`);
    h.expect(clean).toBe('nothing secret here at all');
  });

  h.it('a 500 body echoing the key is a scrubbed tool error', async () => {
    const output = await outputOf(h, () => ({ 'x-api-key': KEY }), status(500, `bad key ${KEY}`));
    h.expect(String(output)).toContain(`bad key ${R}`);
    h.expect(String(output)).not.toContain(KEY.slice(0, 6));
  });
}

function scanCases(h: SuiteHarness): void {
  h.it('echoes of two secrets of different lengths, apart and touching, become one marker each', async () => {
    const LONG = 'long-secret-9f8e7d6c5b4a';
    const SHORT = 'sh0rt-k3y';
    const output = await outputOf(h, () => ({ 'x-long': LONG, 'x-short': SHORT }), text(`${SHORT} then ${LONG} then ${SHORT}${LONG} then ${LONG}${SHORT} end ${SHORT}`));
    h.expect(output).toBe(`${R} then ${R} then ${R} then ${R} end ${R}`);
  });

  h.it('a value of exactly 16 characters (one window) is scrubbed', async () => {
    const SIXTEEN = 'p0o9i8u7y6t5r4e3';
    const output = await outputOf(h, () => ({ 'x-api-key': SIXTEEN }), text(`<${SIXTEEN}>`));
    h.expect(output).toBe(`<${R}>`);
  });

  h.it('text that only hashes like a secret is left alone', async () => {
    // 'a~' and 'b_' weigh the same in the rolling hash (+1·31 − 31): only the characters differ.
    const output = await outputOf(h, () => ({ 'x-api-key': 'm4n5a~p6q7' }), text('m4n5b_p6q7 and m4n5a~p6q7'));
    h.expect(output).toBe(`m4n5b_p6q7 and ${R}`);
  });

  h.it('a huge value is indexed by its first 4,096 windows only: its last 16 characters alone are not caught', async () => {
    const [HUGE] = tokens(1, 4_096 + 16, 11) as [string];
    const output = await outputOf(h, () => ({ 'x-api-key': HUGE }), text(`a ${HUGE.slice(4_095, 4_111)} b ${HUGE.slice(4_096)} c`));
    h.expect(output).toBe(`a ${R} b ${HUGE.slice(4_096)} c`);
  });

  h.it('a cut 4 characters into a secret leaves none of them; a cut in plain text takes nothing more', async () => {
    const KEY = 'q7w3e9r1t5y2u8i0p4';
    const [cutInKey, cutInText] = await outputs(h, () => ({ 'x-api-key': KEY }), [{ reply: failed(`${'x'.repeat(3_996)}${KEY}`) }, { reply: failed('y'.repeat(5_000)) }]);
    h.expect(cutInKey).toBe(`${'x'.repeat(3_996)}${R}… (cut: ${3_996 + KEY.length} characters in all)`);
    h.expect(cutInText).toBe(`${'y'.repeat(4_000)}… (cut: 5000 characters in all)`);
  });

  h.it('a text of 20,000 cut markers, each after the start of a secret, costs linear time', async () => {
    const KEY = 'q7w3e9r1t5y2u8i0p4';
    const marker = '… (cut: ';
    const output = await outputOf(h, () => ({ 'x-api-key': KEY }), text(`${KEY.slice(0, 4)}${marker}`.repeat(20_000)));
    h.expect(output).toBe(`${R}${marker}`.repeat(20_000));
  });
}
