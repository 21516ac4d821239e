/**
 * `mcp()`: a ToolSource over one MCP server. It connects lazily on the first `tools()`,
 * shares one connect and one sweep among concurrent callers, reconnects after a lost
 * connection, applies the drift policy, and `close()` releases everything and resets it.
 *
 * Every `close()` starts a new epoch. Tools from an earlier epoch answer with an error
 * result instead of reconnecting: the host closed that source on purpose.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { raceSignal, settledWithin, withDeadline } from '../async.js';
import { ConfigError, RulvarError, SourceError, describeCause, withSafeCause } from '../errors.js';
import { Redactor } from '../secrets/redactor.js';
import { isToolError, toolError } from '../tools/tool-error.js';
import type { McpToolSource, ToolContext, ToolDef, ToolSourceSession } from '../tools/types.js';
import type { McpConfig } from './config-types.js';
import { parseMcpConfig } from './config.js';
import { importTools } from './import-tools.js';
import { callOnSession, cancelled, type CallTarget } from './call.js';
import type { CallProgress } from './progress-watch.js';
import { RELEASE_WAIT_MS, connectSession } from './connect.js';
import { HeaderHookError } from './http-fetch.js';
import { ConnectFailure, type McpSession } from './session.js';
import { defaultSourceId } from './source-id.js';
import { assertTransportAvailable, type McpPlatform } from './transports.js';
import type { Era } from './modern/revision.js';
import { classifyWireError, isConnectionLost } from './wire-errors.js';

export type Mcp = (config: McpConfig) => McpToolSource;

/** Builds the `mcp` function of one runtime entry from that runtime's capabilities. */
export function createMcp(platform: McpPlatform): Mcp {
  return (config) => new McpSource(config, platform);
}

class McpSource implements McpToolSource {
  readonly id: string;
  private readonly config: McpConfig;
  private epoch = 0;
  private connecting: Promise<McpSession> | undefined;
  private connectAbort: AbortController | undefined;
  private session: McpSession | undefined;
  private driftRefusal: ConfigError | undefined;
  /** The revision the last connection found (protocol 'auto' probes once per source, not per connect). */
  private era: Era | undefined;
  private closing: Promise<void> | undefined;
  /** ToolDefs by the wire list they came from; a new sweep (or epoch) means a new list. */
  private readonly imported = new WeakMap<readonly Tool[], readonly ToolDef[]>();
  /** Every header value this source sent, scrubbed from whatever it reports or returns. */
  private readonly redactor = new Redactor();

  constructor(input: McpConfig, private readonly platform: McpPlatform) {
    this.config = parseMcpConfig(input);
    assertTransportAvailable(this.config, platform);
    this.id = this.config.id ?? defaultSourceId(this.config);
  }

  tools(session?: ToolSourceSession): Promise<ToolDef[]> {
    const snapshot = this.snapshot().catch((error: unknown) => {
      throw error instanceof Error ? withSafeCause(error, (text) => this.redactor.text(text)) : error;
    });
    if (session?.signal === undefined) return snapshot;
    // Only this caller stops waiting; a sweep shared with others carries on.
    return raceSignal(snapshot, session.signal, () => new SourceError('source.cancelled', `${this.id}: tools() was cancelled`));
  }

  private async snapshot(): Promise<ToolDef[]> {
    if (this.driftRefusal !== undefined) throw this.driftRefusal;
    const epoch = this.epoch;
    // discoveryMs is the caller's wait for a list, so a handshake this sweep waits on counts.
    const startedAt = Date.now();
    const discoveryMs = this.config.timeouts?.discoveryMs;
    const session = await this.sessionWithin(
      discoveryMs,
      () => new ConfigError('discovery.deadline', `${this.id}: tools/list sweep passed its deadline of ${discoveryMs} ms while connecting`),
    );
    let wireTools;
    try {
      wireTools = await session.listTools(startedAt);
    } catch (error) {
      throw this.listFailure(error, session, epoch);
    }
    // A cached list can outlive the session by a microtask; tools of a closed source are dead.
    if (this.epoch !== epoch) throw new SourceError('source.closed', `${this.id}: the source was closed during tools()`);
    if (this.driftRefusal !== undefined) throw this.driftRefusal;
    // One import (and one schema compile) per swept list, however often it is snapshotted.
    let defs = this.imported.get(wireTools);
    if (defs === undefined) {
      defs = Object.freeze(importTools(wireTools, this.config, this.id, (target, input, ctx) => this.callTool(epoch, target, input, ctx)));
      this.imported.set(wireTools, defs);
    }
    return [...defs];
  }

  async close(): Promise<void> {
    this.epoch += 1;
    this.driftRefusal = undefined;
    const connecting = this.connecting;
    const session = this.session;
    this.connecting = undefined;
    this.session = undefined;
    this.connectAbort?.abort();
    this.connectAbort = undefined;
    // A connect still in flight is aborted and waited out (bounded: a server whose own
    // connect() never returns holds nothing to release), so nothing it spawned outlives
    // close(). An earlier close() still running is waited for too.
    const released = Promise.all([session?.shutdown(), connecting && settledWithin(connecting, RELEASE_WAIT_MS)]);
    const all = Promise.all([this.closing, released]).then(() => undefined);
    this.closing = all;
    try {
      await all;
    } finally {
      if (this.closing === all) this.closing = undefined;
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * The current session, waited for at most `ms` when it has to connect first. Only this
   * caller stops waiting: the connect carries on under its own bound (connectMs, else the
   * SDK's), for whoever else waits on it and for the calls after.
   */
  private sessionWithin(ms: number | undefined, expired: () => Error): Promise<McpSession> {
    const live = this.liveSession();
    return ms === undefined || this.session?.usable === true ? live : withDeadline(live, ms, expired);
  }

  /** The current session, connecting afresh when there is none or it was lost. */
  private liveSession(): Promise<McpSession> {
    if (this.session?.usable === true) return Promise.resolve(this.session);
    if (this.connecting !== undefined) return this.connecting;
    const epoch = this.epoch;
    const abort = new AbortController();
    this.connectAbort = abort;
    const events = { onListChanged: () => this.onListChanged(epoch) };
    // An in-process server takes one connection at a time: let a close() or a lost session
    // finish releasing it before connecting again.
    const released = Promise.all([this.closing, this.session?.shutdown()]);
    const attempt = released.then(() => connectSession({ config: this.config, platform: this.platform, sourceId: this.id, events, redactor: this.redactor, hint: this.era }, abort.signal)).then(
      async (session) => {
        if (this.epoch !== epoch) {
          await session.shutdown();
          throw new SourceError('source.closed', `${this.id}: the source was closed while connecting`);
        }
        this.session = session;
        this.era = session.era;
        return session;
      },
      (error: unknown) => {
        if (this.epoch !== epoch) {
          throw new SourceError('source.closed', `${this.id}: the source was closed while connecting`);
        }
        if (RulvarError.is(error)) throw error;
        const original = error instanceof ConnectFailure ? error.cause : error;
        if (original instanceof HeaderHookError) throw this.hookFailure(original);
        const kind = classifyWireError(original).kind;
        const code = kind === 'protocol' || kind === 'server' ? 'source.protocol' : 'source.unavailable';
        throw new SourceError(code, `${this.id}: could not connect: ${describeCause(error)}`, { cause: original });
      },
    );
    const shared = attempt.finally(() => {
      if (this.connecting === shared) this.connecting = undefined;
      if (this.connectAbort === abort) this.connectAbort = undefined;
    });
    this.connecting = shared;
    return shared;
  }

  private onListChanged(epoch: number): void {
    if (this.epoch !== epoch || this.config.drift !== 'refuse') return;
    this.driftRefusal ??= new ConfigError(
      'source.drift_refused',
      `${this.id}: the server changed its tool list and drift is 'refuse'; close() the source to import the new list`,
    );
  }

  private listFailure(error: unknown, session: McpSession, epoch: number): Error {
    if (this.epoch !== epoch) return new SourceError('source.closed', `${this.id}: the source was closed during tools/list`, { cause: error });
    // The sweep's own refusals (bounds, guards, names) are already typed and worded.
    if (RulvarError.is(error)) return error;
    const failure = classifyWireError(error, session.stateless);
    if (failure.kind === 'hook') return this.hookFailure(error);
    if (isConnectionLost(failure)) session.markLost();
    const protocol = failure.kind === 'protocol' || failure.kind === 'server';
    const detail = failure.kind === 'lost' ? session.explain(error) : failure.message;
    return new SourceError(protocol ? 'source.protocol' : 'source.unavailable', `${this.id}: tools/list failed: ${detail}`, { cause: error });
  }

  /** The host's header hook failed: its own typed error, and the session is kept. */
  private hookFailure(error: unknown): ConfigError {
    return new ConfigError('http.header_hook', `${this.id}: ${describeCause(error)}`);
  }

  // Not an async function: every call of every imported tool runs through here. A warm call
  // (the session usable) reads close() and scrubs in the one step after the wire, so it costs
  // no async frame and one promise of its own; one that must connect first scrubs at its end.
  // Every value it resolves to is scrubbed.
  private callTool(epoch: number, target: CallTarget, input: unknown, ctx: ToolContext): Promise<unknown> {
    if (this.epoch !== epoch) return Promise.resolve(this.scrubbed(toolError('unavailable', `${this.id} was closed; this tool is no longer available`)));
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return Promise.resolve(this.scrubbed(toolError('invalid_input', 'the arguments must be a JSON object')));
    }
    const args = input as Record<string, unknown>;
    const report = this.progressOf(ctx);
    const session = this.session;
    if (session?.usable === true) {
      return callOnSession(session, this.id, target, args, ctx, undefined, report).then((value) => this.scrubbed(this.closedDuring(epoch, value)));
    }
    const onSession = (connected: McpSession, spentMs?: number): Promise<unknown> =>
      callOnSession(connected, this.id, target, args, ctx, spentMs, report).then((value) => this.closedDuring(epoch, value));
    return this.connectThenCall(target, ctx, onSession).then((value) => this.scrubbed(value));
  }

  /** A result as the model may read it: a tool error's message and every string of an output scrubbed. */
  private scrubbed(value: unknown): unknown {
    if (!this.redactor.active) return value;
    return isToolError(value) ? toolError(value.reason, this.redactor.text(value.message)) : this.redactor.value(value);
  }

  /** A failure caused by close() says so, whatever the wire made of it. */
  private closedDuring(epoch: number, value: unknown): unknown {
    return this.epoch !== epoch && isToolError(value) ? toolError('unavailable', `${this.id} was closed while the call was running`) : value;
  }

  /** Where a call's progress goes: the caller's ctx.progress, its message scrubbed like a result. */
  private progressOf(ctx: ToolContext): CallProgress['onProgress'] {
    const report = ctx.progress;
    if (report === undefined) return undefined;
    // The whole message is scrubbed before the bus cuts it, so no cut can split a secret.
    return (progress, total, message) =>
      report(progress, total as number | undefined, (typeof message === 'string' && this.redactor.active ? this.redactor.text(message) : message) as string | undefined);
  }

  /**
   * A call that must (re)connect first: only this can take long enough to race the call's
   * signal. callMs bounds the call as a whole, so the reconnect spends from it and the
   * request gets what is left.
   */
  private async connectThenCall(
    target: CallTarget,
    ctx: ToolContext,
    onSession: (session: McpSession, spentMs?: number) => Promise<unknown>,
  ): Promise<unknown> {
    const callMs = this.config.timeouts?.callMs;
    const startedAt = Date.now();
    const expiry = new Error(`${this.id} did not connect within timeouts.callMs = ${callMs} ms`);
    let session: McpSession;
    try {
      session = await raceSignal(this.sessionWithin(callMs, () => expiry), ctx.signal, () => new Error('cancelled'));
    } catch (error) {
      if (ctx.signal.aborted) return cancelled(target.name, ctx.signal);
      if (error === expiry) return toolError('timeout', `${target.name} timed out: ${expiry.message}`);
      return toolError('unavailable', `${this.id} is unavailable: ${describeCause(error)}`);
    }
    return onSession(session, Date.now() - startedAt);
  }
}
