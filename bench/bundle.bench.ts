/**
 * The minimal Worker's bundle against issue 14's target of 60 KB gzip'd, and what it is made of.
 *
 * The Worker is test/workerd/fixtures/minimal-worker.ts (a streamable-http source,
 * `resolveToolset`, `dispatchTool`), bundled as wrangler would: esbuild, the workerd
 * conditions, tree-shaken, minified, then gzip'd. `@rulvar/core` is pointed at src/edge so the
 * row measures the sources under test (test/workerd/edge-bundle.test.ts measures dist/ the
 * same way; the two differ by a few hundred bytes of tsup's chunk glue).
 *
 * Beside it, the floor the SDK sets: its `Protocol`, its streamable-http client transport and
 * the three result schemas a client needs, used the way a bare client would use them. That
 * much of the SDK cannot be shaken off, and it brings all of zod with it.
 *
 * The breakdown splits the output by component through the source map. Gzip does not add up
 * by part, so each component's share of the total is its gzip'd size alone, scaled so the
 * shares sum to the measured total; the parts alone are printed too.
 *
 * Sizes, not times: no Row for the benchmarks guide's timing table and no --check gate (report.ts
 * renders milliseconds). The target line says met or MISSED like the others.
 */
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_GZIP = 60_000;
const WORKER = path.join(root, 'test/workerd/fixtures/minimal-worker.ts');

/** The SDK a client cannot do without, exercised so nothing of it is shaken out. */
const SDK_FLOOR = `
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, InitializeResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
class Client extends Protocol {
  assertCapabilityForMethod() {} assertNotificationCapability() {} assertRequestHandlerCapability() {}
  assertTaskCapability() {} assertTaskHandlerCapability() {}
}
export default { async fetch(request, env) {
  const client = new Client();
  await client.connect(new StreamableHTTPClientTransport(new URL(env.MCP_URL)));
  const init = await client.request({ method: 'initialize', params: {} }, InitializeResultSchema);
  const list = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
  const call = await client.request({ method: 'tools/call', params: { name: 'lookup' } }, CallToolResultSchema);
  return Response.json([init, list, call]);
} };`;

const WORKER_BUILD = {
  absWorkingDir: root,
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  minify: true,
  metafile: true,
  sourcemap: 'external',
  // Only names the files: nothing is written. Sources in the map come out relative to root.
  outfile: path.join(root, 'minimal-worker.js'),
  logLevel: 'error',
} satisfies BuildOptions;

/** The components the issue names, in the order they are printed. */
const COMPONENTS = [
  'zod',
  'MCP SDK',
  "the SDK's own dependencies",
  'this library: the validator (src/core/schema)',
  'this library: the rest',
  'esbuild runtime and the Worker itself',
] as const;
type Component = (typeof COMPONENTS)[number];

function componentOf(source: string | undefined): Component {
  if (source === undefined) return 'esbuild runtime and the Worker itself';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1];
  if (pkg === 'zod') return 'zod';
  if (pkg === '@modelcontextprotocol/sdk') return 'MCP SDK';
  if (pkg !== undefined) return "the SDK's own dependencies";
  if (source.includes('src/core/schema/')) return 'this library: the validator (src/core/schema)';
  if (source.includes('src/')) return 'this library: the rest';
  return 'esbuild runtime and the Worker itself';
}

export interface ComponentSize {
  readonly name: Component;
  readonly minified: number;
  readonly gzipAlone: number;
  /** This component's part of the measured gzip total (see the file comment). */
  readonly gzipShare: number;
}

export interface BundleReport {
  readonly minified: number;
  readonly gzip: number;
  readonly sdkFloorGzip: number;
  readonly target: number;
  readonly met: boolean;
  readonly components: readonly ComponentSize[];
}

interface Built {
  readonly code: string;
  readonly map: { readonly sources: readonly string[]; readonly mappings: string };
  readonly inputs: Readonly<Record<string, { readonly bytesInOutput: number }>>;
}

async function bundle(options: Pick<BuildOptions, 'entryPoints' | 'stdin' | 'alias'>): Promise<Built> {
  const result = await build({ ...WORKER_BUILD, ...options });
  const code = result.outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '';
  const map = JSON.parse(result.outputFiles.find((file) => file.path.endsWith('.map'))?.text ?? '{}') as Built['map'];
  const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.js'))?.[1];
  return { code, map, inputs: output?.inputs ?? {} };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Where each source's code starts in the output: [offset, source index] per mapped segment,
 * in output order. Source map v3: `;` ends a generated line, `,` a segment; fields are base64
 * VLQ, each relative to the previous segment's (the column only within its line).
 */
function segments(code: string, mappings: string): [number, number][] {
  const found: [number, number][] = [];
  let lineStart = 0;
  let source = 0;
  for (const line of mappings.split(';')) {
    let column = 0;
    for (const segment of line === '' ? [] : line.split(',')) {
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if ((digit & 32) !== 0) shift += 5;
        else {
          fields.push((value & 1) === 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length > 1) {
        source += fields[1] ?? 0;
        found.push([lineStart + column, source]);
      }
    }
    const end = code.indexOf('\n', lineStart);
    lineStart = end < 0 ? code.length : end + 1;
  }
  return found;
}

/** The output split by component: each mapped segment runs to the next one. */
function breakdown(built: Built, gzipTotal: number): ComponentSize[] {
  const parts = new Map<Component, string[]>(COMPONENTS.map((name) => [name, []]));
  const mapped = segments(built.code, built.map.mappings);
  parts.get(componentOf(undefined))?.push(built.code.slice(0, mapped[0]?.[0] ?? built.code.length));
  mapped.forEach(([start, source], i) => {
    parts.get(componentOf(built.map.sources[source]))?.push(built.code.slice(start, mapped[i + 1]?.[0] ?? built.code.length));
  });
  const alone = COMPONENTS.map((name) => {
    const text = (parts.get(name) ?? []).join('');
    return { name, minified: Buffer.byteLength(text), gzipAlone: text === '' ? 0 : gzipSync(text).length };
  });
  const sumAlone = alone.reduce((sum, part) => sum + part.gzipAlone, 0);
  return alone.map((part) => ({ ...part, gzipShare: Math.round((part.gzipAlone / sumAlone) * gzipTotal) }));
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export async function benchBundle(): Promise<BundleReport> {
  const worker = await bundle({ entryPoints: [WORKER], alias: { '@rulvar/core': path.join(root, 'src/edge/index.ts') } });
  const floor = await bundle({ stdin: { contents: SDK_FLOOR, resolveDir: root, loader: 'js' } });
  const bytes = Buffer.from(worker.code);
  const gzip = gzipSync(bytes).length;
  const sdkFloorGzip = gzipSync(floor.code).length;
  const components = breakdown(worker, gzip);

  const out = (line: string) => process.stdout.write(`${line}\n`);
  out('\nbundle: the minimal Worker (streamable-http source, resolveToolset, dispatchTool), esbuild --minify for workerd, gzip');
  out(`  ${'component'.padEnd(46)}  ${'minified'.padStart(9)}  ${'gzip alone'.padStart(10)}  ${'gzip share'.padStart(10)}`);
  for (const part of components) {
    out(`  ${part.name.padEnd(46)}  ${kb(part.minified).padStart(9)}  ${kb(part.gzipAlone).padStart(10)}  ${kb(part.gzipShare).padStart(10)}`);
  }
  out(`  ${'total'.padEnd(46)}  ${kb(bytes.length).padStart(9)}  ${''.padStart(10)}  ${kb(gzip).padStart(10)}`);
  out(`  the SDK's floor alone (Protocol, its streamable-http transport, three result schemas, with zod): ${kb(floor.code.length)} minified, ${kb(sdkFloorGzip)} gzip`);
  out(`  this library on top of that floor: ${kb(gzip - sdkFloorGzip)} gzip`);
  const largest = Object.entries(worker.inputs)
    .sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput)
    .slice(0, 8)
    .map(([file, { bytesInOutput }]) => `${file.replace(/^.*node_modules\//, '')} ${kb(bytesInOutput)}`);
  out(`  largest inputs (minified): ${largest.join(', ')}`);
  const met = gzip <= TARGET_GZIP;
  out(`  target <= ${kb(TARGET_GZIP)} gzip, minimal Worker: ${kb(gzip)}, ${met ? 'met' : 'MISSED'}`);
  return { minified: bytes.length, gzip, sdkFloorGzip, target: TARGET_GZIP, met, components };
}
