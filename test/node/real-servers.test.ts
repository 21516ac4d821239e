/**
 * The registry's reference servers over stdio, through resolveToolset and dispatchTool:
 * server-everything (structured content, the tiny image's mixed parts, resource links,
 * argument errors) and server-filesystem (every tool declares an outputSchema).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchTool, mcp, resolveToolset, type McpToolSource, type ResolvedToolset } from '../../src/node/index.js';
import { EVERYTHING } from './process-helpers.js';

const FILESYSTEM = fileURLToPath(new URL('../../node_modules/.bin/mcp-server-filesystem', import.meta.url));
let n = 0;
const call = async (toolset: ResolvedToolset, name: string, input: unknown) => {
  const outcome = await dispatchTool(toolset, { id: `rs${(n += 1)}`, name, input });
  if (outcome.status !== 'done') throw new Error(`expected a result, got ${outcome.status}`);
  return outcome.result;
};

describe('@modelcontextprotocol/server-everything over stdio', () => {
  let source: McpToolSource;
  let toolset: ResolvedToolset;
  beforeAll(async () => {
    source = mcp({ transport: 'stdio', command: EVERYTHING, args: ['stdio'], stderr: 'ignore', prefix: 'ev' });
    toolset = await resolveToolset([source]);
  });
  afterAll(() => source.close());

  it('validates structured content against its declared outputSchema', async () => {
    expect(toolset.get('ev_get-structured-content')?.outputSchema).toBeDefined();
    const result = await call(toolset, 'ev_get-structured-content', { location: 'Chicago' });
    expect(result.isError).toBe(false);
    expect(result.output).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  it('keeps the tiny image as a typed part among text parts, in order', async () => {
    const parts = (await call(toolset, 'ev_get-tiny-image', {})).output as { type: string; mimeType?: string }[];
    expect(parts.map((p) => p.type)).toEqual(['text', 'image', 'text']);
    expect(parts[1]?.mimeType).toBe('image/png');
  });

  it('keeps resource links as typed parts', async () => {
    const parts = (await call(toolset, 'ev_get-resource-links', { count: 2 })).output as { type: string }[];
    expect(parts.filter((p) => p.type === 'resource_link')).toHaveLength(2);
  });

  it('refuses bad arguments before the wire, naming the issue', async () => {
    const missing = await call(toolset, 'ev_get-sum', { a: 1 });
    expect(missing).toMatchObject({ isError: true, reason: 'invalid_input' });
    expect(String(missing.output)).toContain('b');
    const wrongEnum = await call(toolset, 'ev_get-structured-content', { location: 'Atlantis' });
    expect(wrongEnum).toMatchObject({ isError: true, reason: 'invalid_input' });
    expect(await call(toolset, 'ev_get-sum', { a: 1, b: 2 })).toMatchObject({ isError: false });
  });
});

describe('@modelcontextprotocol/server-filesystem over stdio', () => {
  let dir: string;
  let source: McpToolSource;
  let toolset: ResolvedToolset;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rulvar-fs-'));
    await writeFile(path.join(dir, 'hello.txt'), 'hello, world\n');
    source = mcp({ transport: 'stdio', command: FILESYSTEM, args: [dir], stderr: 'ignore', prefix: 'fs' });
    toolset = await resolveToolset([source]);
  });
  afterAll(async () => {
    await source.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports every tool with its outputSchema', () => {
    expect(toolset.tools.length).toBeGreaterThanOrEqual(10);
    expect(toolset.tools.every((t) => t.outputSchema !== undefined)).toBe(true);
  });

  it('structured results validate against the declared schemas', async () => {
    const read = await call(toolset, 'fs_read_text_file', { path: path.join(dir, 'hello.txt') });
    expect(read).toMatchObject({ isError: false, output: { content: 'hello, world\n' } });
    const listing = await call(toolset, 'fs_list_directory', { path: dir });
    expect(listing).toMatchObject({ isError: false, output: { content: expect.stringContaining('hello.txt') } });
  });

  it('a server-side failure is a server_error result with the server text', async () => {
    const outside = await call(toolset, 'fs_read_text_file', { path: '/etc/hostname' });
    expect(outside).toMatchObject({ isError: true, reason: 'server_error' });
    expect(String(outside.output)).toMatch(/denied|outside|not allowed/i);
  });
});
