/** The public configuration surface of `mcp()` (spec/mcp.md, "Importing tools"). */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ToolRisk } from '../tools/types.js';
import type { McpBounds } from './bounds.js';

/** Options every transport accepts. */
export interface McpCommonConfig extends McpBounds {
  /** The ToolSource id; defaults to one derived from the transport (never from secrets). */
  readonly id?: string;
  /** Original (pre-prefix) names to import; omitted means all. */
  readonly allow?: readonly string[];
  /** Original names to leave out; wins over `allow`. */
  readonly deny?: readonly string[];
  /** Imported names become `${prefix}_${name}`. */
  readonly prefix?: string;
  /** `true` flags every imported tool `needsApproval`; a record flags tools by original name. */
  readonly approval?: boolean | Readonly<Record<string, boolean>>;
  /** Host-supplied risk labels by original name; server annotations never set risk. */
  readonly risk?: Readonly<Record<string, ToolRisk>>;
  /** What a `tools/list_changed` notification means: re-key later snapshots, or refuse. */
  readonly drift?: 'rekey' | 'refuse';
  /**
   * The MCP revision spoken (docs/mcp.md): '2025-11-25' (the default) runs the initialize
   * handshake, '2026-07-28' the stateless revision only, 'auto' probes with server/discover
   * and falls back to initialize on a legacy server.
   */
  readonly protocol?: 'auto' | '2026-07-28' | '2025-11-25';
  /**
   * A tool whose schema is outside the validator's subset: 'refuse' (the default) refuses the
   * whole source when the toolset is resolved; 'skip' leaves that tool out (onToolSkipped hears of it).
   */
  readonly onUnsupportedSchema?: 'refuse' | 'skip';
  /** Told of each server tool left out of the list, naming it and why (a bad x-mcp-header, a skipped schema). */
  readonly onToolSkipped?: (skipped: SkippedTool) => void;
}

/** A server tool `mcp()` left out of the list it imports, and why (given to `onToolSkipped`). */
export interface SkippedTool {
  /** The server's (original, unprefixed) name. */
  readonly name: string;
  /** Why it was left out, e.g. an invalid `x-mcp-header` annotation or a schema outside the subset. */
  readonly reason: string;
}

export interface StdioMcpConfig extends McpCommonConfig {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Added to a small inherited environment (PATH, HOME, USER, SHELL, TERM, LOGNAME and
   * their Windows counterparts); the host's other variables are not passed to the server.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The child's stderr: inherited (default), discarded, or handed to you chunk by chunk. */
  readonly stderr?: 'inherit' | 'ignore' | ((chunk: string) => void);
}

export type HeaderRecord = Readonly<Record<string, string>>;
/**
 * Called before every wire request (POST, GET, DELETE): the place to rotate a token. Values
 * must be strings (anything else is refused typed, naming the header, and nothing is sent).
 */
export type HeaderHook = () => HeaderRecord | Headers | Promise<HeaderRecord | Headers>;
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpOptions {
  readonly headers?: HeaderRecord | HeaderHook;
  /** The fetch to send with: a Worker service binding's `fetch`, say. Defaults to global fetch. */
  readonly fetch?: FetchLike;
  /**
   * OAuth 2.1 for the server (docs/oauth.md): the SDK runs discovery, registration, PKCE and
   * refresh on a 401 or a 403 insufficient_scope and resends. Its bearer token wins over an
   * `authorization` header from `headers`.
   */
  readonly authProvider?: OAuthClientProvider;
}

export interface StreamableHttpMcpConfig extends McpCommonConfig {
  readonly transport: 'streamable-http';
  readonly url: string | URL;
  readonly http?: HttpOptions;
}

/**
 * An MCP server in this process: anything that serves MCP over a transport it is handed (an
 * SDK `McpServer` or `Server`, v1 or v2: these speak 2025-11-25), or a web-standard handler
 * such as the v2 SDK's `createMcpHandler` (both revisions, as it was configured), which is
 * called with each request's `Request` as a streamable-http server would be, without a socket.
 */
export type InprocessServer =
  | {
      /** An SDK server: serves MCP over the in-memory transport it is handed. */
      connect(transport: Transport): Promise<void>;
    }
  | {
      /** A web-standard handler: answers each request as a streamable-http endpoint would. */
      fetch(request: Request): Promise<Response>;
    };

export interface InprocessMcpConfig extends McpCommonConfig {
  readonly transport: 'inprocess';
  readonly server: InprocessServer;
}

export type McpConfig = StdioMcpConfig | StreamableHttpMcpConfig | InprocessMcpConfig;
export type McpTransportName = McpConfig['transport'];
