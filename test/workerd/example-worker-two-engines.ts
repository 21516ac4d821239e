/**
 * A Worker for test/workerd/example-worker-two-engines.test.ts: a Durable Object that runs
 * examples/worker's own workflow, sources and engine (agent.ts) over its journal, but without
 * RunObject's queue, so two requests to one run each work it with an engine of their own at
 * the same time. Routes, each taking `?run=<id>`:
 *   POST /start    { task }           runs until the run suspends at the note's approval
 *   POST /decide   { key, label }     resolves the approval (allow), then resumes the run
 *   GET  /journal                     the run's entries
 * The notebook's write (the one effect a resume makes before its next journal write) waits,
 * in each /decide, until the other /decide has reached that same write or has settled. So
 * both engines have loaded the journal before either appends, whatever the interleaving,
 * and a request that never gets to the effect (refused by a lease) does not hold the other.
 */
import { durableObjectJournal, type DurableObjectStorageLike, type JournalStore, type RunOutcome } from '@rulvar/core';
import { openEngine, taskWorkflow } from '../../examples/worker/src/agent.js';
import type { WorkerConfig } from '../../examples/worker/src/config.js';
import { forwardToObject } from './fixtures/forward-to-object.js';

interface StateLike {
  readonly storage: DurableObjectStorageLike & { put(key: string, value: unknown): Promise<void> };
}
interface EnvLike {
  readonly MCP_URL: string;
  readonly MCP_TOKEN: string;
}

/** What /decide answers: how the request's run settled and how many notes it saved. */
export interface DecideReport {
  readonly label: string;
  readonly resolved: boolean;
  readonly status: RunOutcome['status'];
  readonly code?: string;
  readonly saves: number;
  /** True when the other request neither reached the write nor settled within the bound. */
  readonly gateTimedOut: boolean;
}

/** Long past any resume on a loaded machine; only a broken test gets here. */
const GATE_BOUND_MS = 20_000;

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

export class TwoEngines {
  private readonly journal: JournalStore;
  /** Per request label: it reached the write; it settled. */
  private readonly marks = new Map<string, { reached: ReturnType<typeof deferred>; settled: ReturnType<typeof deferred> }>();

  constructor(
    private readonly state: StateLike,
    private readonly env: EnvLike,
  ) {
    this.journal = durableObjectJournal(state.storage);
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const runId = url.searchParams.get('run') ?? '';
    if (url.pathname === '/journal') return Response.json(await this.journal.load(runId));
    const body = (await request.json()) as { task?: string; key?: string; label?: string };
    if (url.pathname === '/start') {
      const { engine, close } = openEngine(this.config(), this.journal, this.state.storage);
      try {
        const outcome = await engine.run(taskWorkflow, body.task ?? '', { runId }).result;
        return Response.json(outcome.status === 'suspended' ? { status: 'suspended', key: outcome.approvals[0]?.key } : { status: outcome.status });
      } finally {
        await close();
      }
    }
    return Response.json(await this.decide(runId, body.key ?? '', body.label ?? ''));
  }

  private async decide(runId: string, key: string, label: string): Promise<DecideReport> {
    const own = this.mark(label);
    const other = this.mark(label === 'a' ? 'b' : 'a');
    let saves = 0;
    let gateTimedOut = false;
    const notes = {
      get: (name: string) => this.state.storage.get(name),
      put: async (name: string, value: unknown) => {
        own.reached.resolve();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const bound = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), GATE_BOUND_MS)));
        if ((await Promise.race([other.reached.promise, other.settled.promise, bound])) === 'timeout') gateTimedOut = true;
        clearTimeout(timer);
        saves += 1;
        await this.state.storage.put(name, value);
      },
    };
    const { engine, close } = openEngine(this.config(), this.journal, notes);
    try {
      const resolved = await engine.resolveExternal(runId, key, 'allow', { by: 'operator', decider: `test:${label}` });
      const outcome = await engine.resume(runId, taskWorkflow).result;
      return { label, resolved, status: outcome.status, ...(outcome.status === 'failed' ? { code: outcome.error.code } : {}), saves, gateTimedOut };
    } finally {
      own.settled.resolve();
      await close();
    }
  }

  private mark(label: string) {
    let mark = this.marks.get(label);
    if (mark === undefined) this.marks.set(label, (mark = { reached: deferred(), settled: deferred() }));
    return mark;
  }

  private config(): WorkerConfig {
    return { apiToken: 'unused-'.repeat(6), mcpUrl: this.env.MCP_URL, mcpToken: this.env.MCP_TOKEN, approvalDeadlineMs: 86_400_000, model: { adapter: 'scripted', name: 'scripted:demo' } };
  }
}

export default forwardToObject('RUNS');
