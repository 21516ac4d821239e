/**
 * The stdio transport (Node only). It replaces the SDK's StdioClientTransport because that
 * one signals only the direct child on close: a server launched through `npx` or a shell
 * leaves its real process running. Here the child leads its own process group, which is
 * ended as a whole (process-group.ts): by close(), and as soon as the leader exits on its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from '../core/mcp/body-limit.js';
import type { StdioMcpConfig } from '../core/mcp/config-types.js';
import { inheritedEnvironment } from './environment.js';
import { ProcessGroup } from './process-group.js';

const LF = 0x0a;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The connected child; cleared when it closes or close() begins. */
  private child: ChildProcess | undefined;
  /** Kept until close(), even after the child closed: its group may outlive it. */
  private group: ProcessGroup | undefined;
  private readonly buffer = new ReadBuffer();
  private unframed = 0;

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
    this.buffer.clear();
    await group?.close();
  }

  private receive(chunk: Buffer): void {
    // After close() began (an overflow closes too), what is still in the pipe is not framed.
    if (this.child === undefined) return;
    // Our own count of bytes since the last line end: older SDKs' ReadBuffer has no cap.
    const lastNewline = chunk.lastIndexOf(LF);
    this.unframed = lastNewline === -1 ? this.unframed + chunk.length : chunk.length - lastNewline - 1;
    try {
      if (lastNewline === -1 && this.unframed > MAX_MESSAGE_BYTES) {
        throw new Error(`the server sent a line longer than the maximum size of ${MAX_MESSAGE_BYTES} bytes`);
      }
      this.buffer.append(chunk);
    } catch (error) {
      // One message past the buffer cap: the stream can no longer be framed, so the
      // connection ends (requests in flight fail as unavailable) instead of stalling.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not a JSON-RPC message is reported and skipped, not fatal.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

export function createStdioTransport(config: StdioMcpConfig): Transport {
  return new StdioTransport(config);
}
