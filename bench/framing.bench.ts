/**
 * Reading one long line from a stdio server: the SDK's ReadBuffer (what its own stdio client
 * transport uses) against this library's LineFraming, both fed the same 9.5 MB JSON-RPC
 * answer in the 64 KB chunks a pipe delivers, each ending in a message parsed and checked
 * against the SDK's JSON-RPC message schema, as the stdio transport does. ReadBuffer
 * joins everything it holds with each chunk and searches it all again, quadratic in the line;
 * LineFraming looks at each byte once. The host's event loop is blocked for the whole of it.
 */
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { LineFraming } from '../src/node/line-framing.js';
import { compare, median, printTable, type Variant } from './harness.js';
import { measured, type Row } from './report.js';

const LINE_BYTES = 9.5 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const CAP = 10 * 1024 * 1024;

export async function benchFraming(options: { warmup: number; iterations: number }): Promise<Row[]> {
  const tool = { name: 'big', description: 'y'.repeat(LINE_BYTES), inputSchema: { type: 'object' } };
  const line = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [tool] } })}\n`);
  const chunks: Buffer[] = [];
  for (let at = 0; at < line.length; at += CHUNK_BYTES) chunks.push(line.subarray(at, at + CHUNK_BYTES));
  const expectOne = (count: number) => {
    if (count !== 1) throw new Error(`bench: framed ${count} messages, not 1`);
  };
  const variants: Variant[] = [
    {
      name: 'floor: SDK ReadBuffer',
      run: async () => {
        const buffer = new ReadBuffer();
        let count = 0;
        for (const chunk of chunks) {
          buffer.append(chunk);
          while (buffer.readMessage() !== null) count += 1;
        }
        expectOne(count);
      },
    },
    {
      name: 'rulvar: LineFraming',
      run: async () => {
        const framing = new LineFraming(CAP);
        let count = 0;
        for (const chunk of chunks) for (const text of framing.push(chunk)) count += JSONRPCMessageSchema.safeParse(JSON.parse(text)).success ? 1 : 0;
        expectOne(count);
      },
    },
  ];
  const stats = await compare(variants, options);
  printTable(`stdio framing: one ${(LINE_BYTES / 1024 / 1024).toFixed(1)} MB line in ${chunks.length} chunks of 64 KB`, stats, variants[0]?.name ?? '');
  return [
    measured({
      name: 'rulvar: LineFraming',
      comparison: `stdio framing of one ${(LINE_BYTES / 1024 / 1024).toFixed(1)} MB line in 64 KB chunks, parsed and schema-checked, vs the SDK's \`ReadBuffer\``,
      floorLabel: '`ReadBuffer`',
      floor: median(stats, variants[0]?.name ?? ''),
      values: [median(stats, variants[1]?.name ?? '')],
      note: '(reference)',
    }),
  ];
}
