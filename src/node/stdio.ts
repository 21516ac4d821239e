/**
 * The stdio transport (Node only). It replaces the SDK's StdioClientTransport because that
 * one signals only the direct child on close: a server launched through `npx` or a shell
 * leaves its real process running. Here the child leads its own process group, which is
 * ended as a whole (process-group.ts): by close(), and as soon as the leader exits on its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { markedAnswer } from '../core/mcp/answer-shape.js';
import { MAX_MESSAGE_BYTES } from '../core/mcp/body-limit.js';
import type { StdioMcpConfig } from '../core/mcp/config-types.js';
import { inheritedEnvironment } from './environment.js';
import { LineFraming } from './line-framing.js';
import { ProcessGroup } from './process-group.js';


export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The connected child; cleared when it closes or close() begins. */
  private child: ChildProcess | undefined;
  /** Kept until close(), even after the child closed: its group may outlive it. */
  private group: ProcessGroup | undefined;
  private readonly framing = new LineFraming(MAX_MESSAGE_BYTES);

  constructor(private readonly config: StdioMcpConfig) {}

  /** The child's pid while it runs (tests use it to check nothing outlives close()). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    // Once only: a second child would take the place of a group that may still need ending.
    if (this.group !== undefined) return Promise.reject(new Error('stdio transport already started'));
    const { command, args = [], env, cwd, stderr = 'inherit' } = this.config;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        env: { ...inheritedEnvironment(), ...env },
        cwd,
        stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
        shell: false,
        // Its own process group, so close() can reach grandchildren (POSIX only).
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      this.group = new ProcessGroup(child);
      child.once('error', (error) => {
        this.child = undefined;
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        // An exit nobody asked for is worth a reason: it ends up in the connect error.
        if (this.child === child) this.onerror?.(new Error(`the server process exited (${signal ?? `code ${code}`})`));
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      if (typeof stderr === 'function') {
        child.stderr?.setEncoding('utf8');
        child.stderr?.on('data', (text: string) => {
          try {
            stderr(text);
          } catch {
            // A failing stderr sink must not take the connection down with it.
          }
        });
      }
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin == null || stdin.destroyed) return Promise.reject(new Error('the stdio server is not running'));
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    const group = this.group;
    this.child = undefined;
    this.group = undefined;
    this.framing.clear();
    await group?.close();
  }

  private receive(chunk: Buffer): void {
    // After close() began (an overflow closes too), what is still in the pipe is not framed.
    if (this.child === undefined) return;
    let lines: string[];
    try {
      lines = this.framing.push(chunk);
    } catch (error) {
      // One message past the cap: the stream can no longer be framed, so the connection
      // ends (requests in flight fail as unavailable) instead of stalling.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (const line of lines) this.deliver(line);
  }

  /** A line that is not a JSON-RPC message is reported and skipped, not fatal. */
  private deliver(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(new Error('the server wrote a line that is not JSON'));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    // An answer the schema refuses still names the request it answers: its stand-in settles
    // that request as malformed at once instead of leaving it to its timer.
    const marked = markedAnswer(value);
    if (marked !== undefined) this.onmessage?.(marked);
    else this.onerror?.(new Error('the server wrote a line that is not a JSON-RPC message'));
  }
}

export function createStdioTransport(config: StdioMcpConfig): Transport {
  return new StdioTransport(config);
}
