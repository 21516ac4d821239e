/**
 * examples/worker's `MODEL` binding: `anthropic:<model>` and `openai:<model>` run on the
 * library's provider adapters, keyed by a secret binding that reaches the provider's auth
 * header and nothing else (not a response, not an error, not the journal). The Worker is
 * built and run as users deploy it (see example-worker-harness.ts) against a fake provider
 * on loopback; the refusals of MODEL and the keys are in test/node/example-worker-config.test.ts.
 */
import { rm } from 'node:fs/promises';
import process from 'node:process';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/index.js';
import { buildWorker, client, configuredOptions, startExample, startRemote, SECRETS, type Built, type Remote } from './example-worker-harness.js';
import { startProvider, type FakeProvider } from './example-worker-provider.js';

// Built from dist/: runs under npm test, which builds first and sets RULVAR_TEST_DIST=1.
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const KEY = 'sk-model-key-93be51';

type Call = ReturnType<typeof client>;

let built: Built;
let remote: Remote;
let provider: FakeProvider;
const instances: Miniflare[] = [];
const seen: string[] = [];
let claude: Call;
let keyless: Call;

beforeAll(async () => {
  if (!enabled) return;
  [built, remote, provider] = await Promise.all([buildWorker(), startRemote(), startProvider()]);
  const options = await configuredOptions();
  const start = (vars: Record<string, string>): Call => {
    const mf = startExample(built, options, { MCP_URL: remote.url, ...SECRETS, ...vars });
    instances.push(mf);
    return client(mf, seen);
  };
  claude = start({ MODEL: 'anthropic:claude-test', MODEL_BASE_URL: provider.url, ANTHROPIC_API_KEY: KEY });
  keyless = start({ MODEL: 'anthropic:claude-test' });
  await Promise.all(instances.map((mf) => mf.ready));
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await Promise.all(instances.map((mf) => mf.dispose()));
  await Promise.all([remote?.close(), provider?.close()]);
  await rm(built.outdir, { recursive: true, force: true });
});

const request: ModelRequest = { model: 'unused', messages: [{ role: 'user', text: 'hi' }], tools: [] };

describe.runIf(enabled)('examples/worker MODEL mapping', () => {
  it('anthropic:<model> runs on @rulvar/core/anthropic with the ANTHROPIC_API_KEY secret, which only the provider sees', async () => {
    const answered = await claude('POST', '/runs', { task: 'say hello' });
    expect(answered).toMatchObject({ status: 201, body: { status: 'completed', value: 'hello from claude-test' } });
    const [sent] = provider.requests;
    expect(sent).toMatchObject({ path: '/v1/messages', headers: { 'x-api-key': KEY }, body: { model: 'claude-test' } });

    // The provider refuses and quotes the key back: the run fails, named, with no key in it.
    const refused = await claude('POST', '/runs', { task: 'fail please' });
    expect(refused).toMatchObject({ status: 201, body: { status: 'failed', error: { code: 'model.failed', message: expect.stringContaining('anthropic') } } });
    // Every body read lands in `seen`: the journals too.
    for (const answer of [answered, refused]) {
      const { runId } = answer.body as { runId: string };
      expect((await claude('GET', `/runs/${runId}/journal`)).status).toBe(200);
    }
    expect(provider.requests.length).toBeGreaterThanOrEqual(2);
    expect(seen.filter((body) => body.includes(KEY))).toEqual([]);
    expect(remote.endpoint.requests.filter((r) => JSON.stringify(r).includes(KEY))).toEqual([]);
  });

  it('a provider that echoes its key in a 200: the run completes and no route answers the key', async () => {
    const answered = await claude('POST', '/runs', { task: 'echo please' });
    expect(answered).toMatchObject({ status: 201, body: { status: 'completed', value: 'you sent [redacted]' } });
    const { runId } = answered.body as { runId: string };
    const answers = [answered, await claude('GET', `/runs/${runId}`), await claude('GET', `/runs/${runId}/journal`)];
    expect(JSON.stringify(answers[2]?.body)).toContain('you sent [redacted]');
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(KEY);
  });

  it('a provider MODEL without its key secret is a 500 naming the secret, before any run starts', async () => {
    const answer = await keyless('POST', '/runs', { task: 'anything' });
    expect(answer).toMatchObject({ status: 500, body: { error: { code: 'config.missing_key', message: expect.stringContaining('ANTHROPIC_API_KEY') } } });
  });

  it('openai:<model> runs on @rulvar/core/openai with the OPENAI_API_KEY secret as its bearer token', async () => {
    const [{ chooseModel }, { readConfig }] = await Promise.all([import('../../examples/worker/src/model.js'), import('../../examples/worker/src/config.js')]);
    const { adapters, model } = chooseModel(readConfig({ ...SECRETS, MCP_URL: remote.url, MODEL: 'openai:gpt-test', OPENAI_API_KEY: KEY, MODEL_BASE_URL: provider.url }).model);
    expect(model).toBe('openai:gpt-test');
    expect(adapters.map((a) => a.id)).toEqual(['openai']);
    const response = await adapters[0]?.generate({ ...request, model: 'gpt-test' }, AbortSignal.timeout(10_000));
    expect(response).toMatchObject({ text: 'hello from gpt-test', stopReason: 'end' });
    expect(provider.requests.at(-1)).toMatchObject({ path: '/chat/completions', headers: { authorization: `Bearer ${KEY}` }, body: { model: 'gpt-test' } });
  });
});
