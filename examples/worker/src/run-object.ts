/**
 * `RunObject`: one Durable Object per run, holding its journal (`durableObjectJournal`) and
 * its notebook in the object's own storage. The Worker in front checks the caller's
 * credential, validates requests and forwards them here as small JSON messages:
 *   POST /start      { runId, task }                                   runs until the run settles → 201 RunView
 *   GET  /view                                                          → RunView
 *   GET  /journal                                                       → the run's journal entries
 *   POST /resolve    { key, decision, reason?, decider, link? }         resolves, then resumes the run → RunView
 *   POST /link       { key, decision?, expiresInMs? }                   signs an approval link → 201 IssuedLink
 *   POST /link-view  { claims }                                         what a link's page shows → LinkView
 *
 * Work on the run (start, a resolution and its resume, the alarm) is queued and runs one
 * piece at a time: workerd lets a second request into the object while the first awaits the
 * network, and two engines resuming one run would race on its journal. Queued behind a
 * winning resolution, a second one for the same key finds it closed and gets 409 (or, sent
 * through the same link, 409 link.used); the journal holds one resolution either way.
 *
 * Deadlines are alarms: whenever work leaves the run suspended, the alarm is set to the
 * earliest open deadline (`engine.nextDeadline`); `alarm()` resumes the run, which closes the
 * passed deadline by timeout first and lets the agent read the denial.
 */
import { durableObjectJournal, type ApprovalDecision, type Engine, type JournalStore, type RunOutcome } from '@rulvar/core';
import { openEngine, taskWorkflow } from './agent.js';
import { approvalState, checkLinkUnused, claimsForLink, closed, decidable, linkView } from './approvals.js';
import { readConfig, type WorkerConfig } from './config.js';
import type { DurableObjectStateLike, Env } from './env.js';
import { errorResponse } from './error-response.js';
import { HttpError, jsonError } from './http.js';
import { newLinkId, signLink } from './links.js';
import { linksOff, type IssuedLink, type LinkMessage, type LinkViewMessage, type ResolveMessage, type StartMessage } from './messages.js';
import { RECORD_KEY, recordOf, viewOf, type RunRecord, type RunView } from './run-view.js';

export class RunObject {
  private readonly journal: JournalStore;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly state: DurableObjectStateLike,
    private readonly env: Env,
  ) {
    this.journal = durableObjectJournal(state.storage);
  }

  async fetch(request: Request): Promise<Response> {
    try {
      switch (new URL(request.url).pathname) {
        case '/start': {
          const { runId, task } = (await request.json()) as StartMessage;
          const settled = await this.exclusive(async () => this.describe(await this.advance(runId, (engine) => engine.run(taskWorkflow, task, { runId }).result)));
          return Response.json(settled, { status: 201 });
        }
        case '/view':
          return Response.json(await this.describe(await this.record()));
        case '/journal':
          return Response.json(await this.journal.load((await this.record()).runId));
        case '/resolve': {
          const message = (await request.json()) as ResolveMessage;
          return Response.json(await this.exclusive(async () => this.describe(await this.resolve(message))));
        }
        case '/link':
          return Response.json(await this.issueLink((await request.json()) as LinkMessage), { status: 201 });
        case '/link-view': {
          const { claims } = (await request.json()) as LinkViewMessage;
          return Response.json(linkView(await this.journal.load((await this.record()).runId), claims));
        }
        default:
          return jsonError(404, 'request.not_found', 'no such route on a run');
      }
    } catch (error) {
      return errorResponse(error);
    }
  }

  /**
   * A deadline passed with no request in flight: resuming closes it and the run goes on. A
   * throw here makes workerd retry the alarm (with backoff, a few times), so it propagates.
   */
  async alarm(): Promise<void> {
    await this.exclusive(async () => {
      const record = await this.storedRecord();
      // Nothing else runs beside this (exclusive), so 'running' is work that never finished:
      // it threw and could not put the record back, or the object was reset mid-way. Resuming
      // finishes it from the journal (a run that did settle only reports how), where returning
      // early would leave it 'running' for good, retry after retry.
      if (record?.status !== 'suspended' && record?.status !== 'running') return;
      await this.advance(record.runId, (engine) => engine.resume(record.runId, taskWorkflow).result);
    });
  }

  private async resolve({ key, decision, reason, decider, link }: ResolveMessage): Promise<RunRecord> {
    const { runId } = await this.record();
    const entries = await this.journal.load(runId);
    if (link !== undefined) {
      // Checked here, in the queue: of two requests with one link, the second sees the first's resolution.
      checkLinkUnused(entries, link.id);
      if (Date.now() >= link.expiresAt) throw new HttpError(410, 'link.expired', 'this approval link expired while the request waited');
    }
    decidable(runId, key, approvalState(entries, key));
    let won = false;
    const record = await this.advance(runId, async (engine) => {
      const answer: ApprovalDecision = reason === undefined ? { decision } : { decision, reason };
      // 'operator': a person answered through this API (the journal tells them from a timeout);
      // the decider says which credential they held, never the credential itself.
      won = await engine.resolveExternal(runId, key, answer, { by: 'operator', decider });
      // Resumed either way: when the deadline won, its timeout is journaled now and must apply.
      return engine.resume(runId, taskWorkflow).result;
    });
    if (!won) throw closed(key, 'its deadline passed first, and it was denied');
    return record;
  }

  /** Signs a link for an approval still open; it expires at the approval's deadline at the latest. */
  private async issueLink(request: LinkMessage): Promise<IssuedLink> {
    const config = this.config();
    if (config.linkSecret === undefined) throw linksOff();
    const { runId } = await this.record();
    const state = approvalState(await this.journal.load(runId), request.key);
    const claims = claimsForLink(runId, state, request, Date.now(), newLinkId(), config.approvalDeadlineMs);
    const { key, decision, expiresAt, id } = claims;
    const path = `/links/${await signLink(claims, config.linkSecret)}`;
    return { path, linkId: id, runId, key, ...(decision === undefined ? {} : { decision }), expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Runs `work` on a fresh engine, records how the run settled and arms the alarm. */
  private async advance(runId: string, work: (engine: Engine) => Promise<RunOutcome>): Promise<RunRecord> {
    // A bad value in the environment throws here, before anything is written.
    const { engine, close } = openEngine(this.config(), this.journal, this.state.storage);
    try {
      const before = await this.storedRecord();
      // Until the work settles, GET says 'running' (and keeps saying it if the object dies first).
      await this.state.storage.put(RECORD_KEY, { runId, status: 'running' } satisfies RunRecord);
      let record: RunRecord;
      try {
        record = recordOf(runId, await work(engine));
        await this.state.storage.put(RECORD_KEY, record);
      } catch (error) {
        // Put the record back as it was: a 'running' that nothing runs would be a lie to GET,
        // and the alarm's retry (or the next request) works from the journal anyway. Best
        // effort: when storage refuses this too, alarm() still treats 'running' as unfinished.
        await this.restore(before).catch(() => undefined);
        throw error;
      }
      const next = record.status === 'suspended' ? await engine.nextDeadline(runId) : undefined;
      if (next === undefined) await this.state.storage.deleteAlarm();
      else await this.state.storage.setAlarm(next);
      return record;
    } finally {
      await close();
    }
  }

  private config(): WorkerConfig {
    return readConfig(this.env);
  }

  private async restore(record: RunRecord | undefined): Promise<void> {
    if (record === undefined) await this.state.storage.delete(RECORD_KEY);
    else await this.state.storage.put(RECORD_KEY, record);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async describe(record: RunRecord): Promise<RunView> {
    return viewOf(record, await this.journal.load(record.runId));
  }

  private async record(): Promise<RunRecord> {
    const record = await this.storedRecord();
    if (record === undefined) throw new HttpError(404, 'run.not_found', 'no such run');
    return record;
  }

  private async storedRecord(): Promise<RunRecord | undefined> {
    return (await this.state.storage.get(RECORD_KEY)) as RunRecord | undefined;
  }
}
