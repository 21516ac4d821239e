/**
 * examples/browser as a person meets it: `npm run demo:browser`'s script builds the page with
 * vite and serves it, and Chromium clicks through it at the URL the script prints. The page
 * runs an SDK MCP server, `mcp()`, the permission chain and the engine under a
 * Content-Security-Policy without 'unsafe-eval', so a run with no console error (every CSP
 * violation is made one) also shows that nothing in it generates code. The page imports
 * `@rulvar/core`, which resolves to dist/, so this runs only after `npm test` has built it
 * (RULVAR_TEST_DIST=1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env['RULVAR_TEST_DIST'] === '1';
const chromiumPath = process.env['CHROMIUM_PATH'] ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
// The flags vitest.config.ts starts Chromium with, for the reasons given there.
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
/** Where the script's vite build writes (examples/browser/vite.config.ts). */
const outDir = path.join(root, 'examples/browser/out');

let demo: ChildProcess | undefined;
let url: string;
let modules: string[] = [];
let browser: Browser;

/** A port the OS just handed out and took back: free unless something grabs it first. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts scripts/demo-browser.ts (what `npm run demo:browser` runs after tsup, which npm test
 * has already done: rebuilding dist/ here would pull it from under other test files) in its
 * own process group, and resolves with the URL it prints once it serves.
 */
function startDemo(port: number): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo-browser.ts'], { cwd: root, env: { ...process.env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  demo = child;
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const printed = /^Browser demo: (http:\/\/localhost:\d+\/)$/m.exec(output);
      if (printed?.[1] !== undefined) resolve(printed[1]);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`demo:browser exited (${String(code)}) before serving:\n${output}`)));
  });
}

/** Ends the script and everything it started (vite's workers): the whole group, by its id. */
async function stopDemo(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

/** The modules in the built script, absolute, from the source maps the build writes beside it. */
async function modulesOf(assets: string): Promise<string[]> {
  const maps = (await readdir(assets)).filter((file) => file.endsWith('.js.map'));
  const sources = await Promise.all(maps.map(async (file) => (JSON.parse(await readFile(path.join(assets, file), 'utf8')) as { sources: string[] }).sources));
  return sources.flat().map((source) => path.resolve(assets, source));
}

beforeAll(async () => {
  if (!enabled) return;
  const port = await freePort();
  url = await startDemo(port);
  expect(url).toBe(`http://localhost:${port}/`);
  modules = await modulesOf(path.join(outDir, 'assets'));
  browser = await chromium.launch({ ...(chromiumPath === undefined ? {} : { executablePath: chromiumPath }), args: chromiumArgs });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  if (demo !== undefined) await stopDemo(demo);
});

/** The text of each cell of the rows `rowTestId`, by the cells' test ids minus `prefix`. */
function rows(page: Page, rowTestId: string, prefix: string): Promise<Record<string, string>[]> {
  return page.getByTestId(rowTestId).evaluateAll(
    (trs, cut) => trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset['testid']?.slice(cut) ?? '', td.textContent ?? '']))),
    prefix.length,
  );
}

async function verdicts(page: Page, preset: string): Promise<Record<string, string>> {
  await page.getByTestId('preset-select').selectOption(preset);
  await page.locator(`[data-testid="policy-body"][data-preset="${preset}"]`).waitFor();
  return Object.fromEntries((await rows(page, 'policy-row', 'policy-')).map((row) => [row['tool'], row['verdict']]));
}

/** Clicks Run agent and waits for the run to suspend on its one write. */
async function runUntilAsked(page: Page): Promise<void> {
  await page.getByTestId('run-button').click();
  await page.locator('[data-testid="run-status"][data-status="suspended"]').waitFor();
}

const auditOf = async (page: Page, tool: string) => (await rows(page, 'audit-row', 'audit-')).find((row) => row['tool'] === tool);

describe.runIf(enabled)('examples/browser in Chromium', () => {
  it('shows the toolset and the policy, and runs an agent through an approval and a denial', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => void (['error', 'warning'].includes(message.type()) && problems.push(`${message.type()}: ${message.text()}`)));
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    // Chromium reports a refused eval that the page catches (zod's probe for eval, say) only as
    // an event, not on the console: make every violation a console error the check above sees.
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.effectiveDirective} at ${event.sourceFile}:${event.lineNumber}`)),
    );
    await page.goto(url);

    await page.getByTestId('toolset-row').first().waitFor();
    const tools = await rows(page, 'toolset-row', 'tool-');
    expect(tools.map(({ name, risk, approval }) => [name, risk, approval]).sort()).toEqual([
      ['notes_add_note', 'write', 'no'],
      ['notes_delete_note', 'destructive', 'yes'],
      ['notes_list_notes', 'read', 'no'],
      ['notes_read_note', 'read', 'no'],
      ['notes_sleep', '(undeclared)', 'no'],
      ['notes_snapshot', 'read', 'no'],
    ]);
    const hash = await page.getByTestId('toolset-hash').textContent();
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // The same source resolved in Node, from the built Node entry: one contract, one hash.
    // (Imported here: dist/ exists only when this suite is enabled.)
    const { resolveToolset } = await import('@rulvar/core');
    const source = (await import('../../examples/browser/src/agent.js')).notesSource();
    expect(hash).toBe((await resolveToolset([source])).toolsetHash);
    await source.close();

    const strict = { notes_add_note: 'ask', notes_delete_note: 'deny', notes_list_notes: 'allow', notes_read_note: 'allow', notes_sleep: 'ask', notes_snapshot: 'allow' };
    expect(await verdicts(page, 'strict')).toEqual(strict);
    // open compiles to no rules; delete_note still asks because it needs approval.
    expect(await verdicts(page, 'open')).toMatchObject({ notes_add_note: 'allow', notes_delete_note: 'ask', notes_sleep: 'allow' });
    expect(await verdicts(page, 'strict')).toEqual(strict);

    await runUntilAsked(page);
    await expect(page.getByTestId('approval').getAttribute('data-tool')).resolves.toBe('notes_add_note');
    // Turns count from 1, as the terminal demo counts: the model's first answer lists, its second saves.
    expect(await auditOf(page, 'notes_list_notes')).toMatchObject({ turn: '1', verdict: 'allow', layer: 'default', resolution: '—' });
    expect(await auditOf(page, 'notes_add_note')).toMatchObject({ turn: '2', verdict: 'ask', layer: 'ask-rule (strict)', resolution: 'pending' });
    await expect(page.getByTestId('audit-table').locator('caption').textContent()).resolves.toContain('turns count from 1');
    await mkdir(path.join(root, 'docs'), { recursive: true });
    await page.screenshot({ path: path.join(root, 'docs/browser-demo.png'), fullPage: true });

    await page.getByTestId('approve-button').click();
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor();
    expect(await auditOf(page, 'notes_add_note')).toMatchObject({ verdict: 'ask', resolution: 'allow by operator', result: '{"title":"groceries","count":1}' });
    await expect(page.getByTestId('final-answer').textContent()).resolves.toBe('Saved your grocery list as "groceries".');
    await expect(page.getByTestId('approval').count()).resolves.toBe(0);
    // Live: the last turn as it streamed in, and the in-page server's progress on the approved write.
    await expect(page.getByTestId('model-stream').textContent()).resolves.toBe('Saved your grocery list as "groceries".');
    await expect(page.getByTestId('progress-item').allTextContents()).resolves.toEqual(['notes_add_note 1/2 checking the title', 'notes_add_note 2/2 stored']);

    await runUntilAsked(page);
    await page.getByTestId('reason-input').fill('not today');
    await page.getByTestId('deny-button').click();
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor();
    expect(await auditOf(page, 'notes_add_note')).toMatchObject({
      verdict: 'ask',
      resolution: 'deny by operator: not today',
      result: 'error (denied): permission denied: not today',
    });
    await expect(page.getByTestId('final-answer').textContent()).resolves.toBe('I could not save the list: permission denied: not today');

    expect(problems).toEqual([]);
    // And that check could fail: the policy is in force, and a refused eval reaches it.
    // (A string timer, because Playwright's own evaluate is exempt from the page's policy.)
    await page.evaluate(() => setTimeout('document.title = "eval ran"', 0));
    await expect.poll(() => problems).toContainEqual(expect.stringMatching(/^error: CSP violation: script-src at /));
    await expect(page.title()).resolves.not.toBe('eval ran');
    await page.close();
  }, 40_000);

  it('ships a small script with no Ajv, no code generation and no Node builtin', async () => {
    const assets = path.join(outDir, 'assets');
    const scripts = (await readdir(assets)).filter((file) => file.endsWith('.js'));
    const files = await Promise.all(scripts.map((file) => readFile(path.join(assets, file))));
    const raw = files.reduce((sum, bytes) => sum + bytes.length, 0);
    const gzip = files.reduce((sum, bytes) => sum + gzipSync(bytes, { level: 9 }).length, 0);
    const code = files.map((bytes) => bytes.toString('utf8')).join('\n');
    // Measured 2026-12, three chunks: 390 KB raw, 111 KB gzip. zod 4 is most of it, then the
    // library's edge build, then the SDK's client and server halves. A jump past these says a
    // dependency crept in (Ajv alone would add some 130 KB). Measured again after the
    // 2026-07-28 wire, leases and the contract memo landed: 129 KB gzip; with traces,
    // streaming and tool progress 466 KB raw, 137 KB gzip.
    expect(raw).toBeLessThan(490_000);
    expect(gzip).toBeLessThan(142_000);
    expect(modules.some((id) => id.endsWith('/dist/edge/index.js'))).toBe(true);
    expect(modules.filter((id) => /\/dist\/node\/|node_modules\/ajv/.test(id))).toEqual([]);
    expect(code).not.toMatch(/ajv[-/.]/);
    // Code generation: `eval` appears nowhere, and the Function constructor is named twice,
    // both by zod: its probe for eval (skipped under the `jitless` the page sets) and its parser
    // compiler (unused under jitless). The CSP run above proves they stay unused. (A zod error
    // message says "Function types", hence the lookahead.)
    expect(code.match(/\beval\b/g)).toBeNull();
    expect(code.match(/\bFunction\b(?! types)/g)).toHaveLength(2);
    expect(code).toMatch(/\.jitless\|\|[^;]*\)return!1;try\{return Function\(``\)/);
    expect(code).toMatch(/compile\(\)\{let \w+=Function,/);
    expect(code).not.toMatch(/(?:from|import\s*\(?|require\s*\()\s*["'`]node:/);
  });
});
