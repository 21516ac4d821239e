/**
 * What every process of the fleet shares: the Postgres journal (DATABASE_URL, table
 * FLEET_TABLE or `rulvar_fleet`), the refund workflow and its tools, and the engine. Each run
 * looks the order up, asks to refund it (the refund needs approval) and answers. The model is
 * scripted, so the example needs no API key; a real adapter drops in where it is made.
 */
import process from 'node:process';
import pg from 'pg';
import { createEngine, defineWorkflow, tool, type Engine } from '@rulvar/core';
import { postgresJournal } from '@rulvar/core/postgres';
import { scripted } from '@rulvar/core/testing';

export const DATABASE_URL = process.env['DATABASE_URL'];
if (DATABASE_URL === undefined) throw new Error('set DATABASE_URL to a PostgreSQL connection URL');

export function openJournal() {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  pool.on('error', () => undefined); // an idle client's lost connection shows on its next query
  return { pool, journal: postgresJournal({ pool, table: process.env['FLEET_TABLE'] ?? 'rulvar_fleet' }) };
}

/** The order behind a run: its amount is its number times 20, so some refunds are small. */
export const amountOf = (order: string) => Number(order.replace(/\D/g, '')) * 20;

const lookup = tool({
  name: 'lookup_order',
  description: 'Looks an order up.',
  parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  execute: (input: { order: string }) => ({ order: input.order, amount: amountOf(input.order) }),
});

const refund = tool({
  name: 'refund',
  description: 'Refunds an order to the card it was paid with.',
  parameters: { type: 'object', properties: { order: { type: 'string' }, amount: { type: 'number' } }, required: ['order', 'amount'] },
  needsApproval: true,
  // A real refund passes ctx.idempotencyKey to the payment API: a crash between the refund
  // and its journaled result runs it again with the same key, which the API then ignores.
  execute: (input: { order: string; amount: number }, ctx) => {
    console.log(`  [pid ${process.pid}] refunded ${input.order} (${input.amount}) key ${ctx.idempotencyKey?.slice(0, 12)}`);
    return { refunded: input.amount };
  },
});

export const refunds = defineWorkflow({ name: 'refund' }, async (ctx, order: string) => (await ctx.agent(`Refund order ${order}.`, { tools: [lookup, refund] })).text);

/** A turn per step: look up, refund, then say how it went (from the tool result it got). */
const model = scripted((request) => {
  const first = request.messages[0];
  const order = first?.role === 'user' ? (first.text.match(/order (\S+)\./)?.[1] ?? '?') : '?';
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  if (turn === 0) return { toolCalls: [{ name: 'lookup_order', input: { order } }] };
  if (turn === 1) return { toolCalls: [{ name: 'refund', input: { order, amount: amountOf(order) } }] };
  const last = request.messages.at(-1);
  const denied = last?.role === 'tool' && last.results.some((r) => r.isError);
  return denied ? `Order ${order}: the refund was not approved.` : `Order ${order}: refunded ${amountOf(order)}.`;
});

export function fleetEngine(journal: ReturnType<typeof openJournal>['journal']): Engine {
  // leaseMs: a worker that dies holds its runs this long at most (30 s unless told).
  return createEngine({ adapters: [model], journal, leaseMs: 3_000, defaults: { model: 'scripted:refunds', permissions: { approvalDeadlineMs: 60_000 } } });
}
