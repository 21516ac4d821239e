/**
 * The embedded MCP server: a notebook kept in the run's Durable Object storage, served
 * in-process (no socket) to `mcp({ transport: 'inprocess' })`.
 *
 * Why not the SDK's `McpServer` (or `Server`): both construct the SDK's Ajv validator, whose
 * code generation workerd refuses and which adds ~100 KB to the bundle even unused. This
 * server sits on the SDK's `Protocol` instead, the JSON-RPC layer both are built on (request
 * ids, cancellation, ping, error replies), and answers the three requests a tool server
 * needs. It checks its own arguments too: a server should not trust its client to have.
 */
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  InitializedNotificationSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** Where notes live: the run's Durable Object storage. */
export interface NoteStorage {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
}

const MAX_TITLE_CHARS = 200;
const MAX_BODY_CHARS = 10_000;

const TOOLS: Tool[] = [
  {
    name: 'save_note',
    description: 'Save a note under a title, replacing any note with that title.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 1, maxLength: MAX_TITLE_CHARS }, body: { type: 'string', maxLength: MAX_BODY_CHARS } },
      required: ['title', 'body'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { title: { type: 'string' }, chars: { type: 'integer' } }, required: ['title', 'chars'] },
    // Saving the same note twice leaves one note: safe in the at-least-once window on resume.
    annotations: { idempotentHint: true, destructiveHint: false },
  },
  {
    name: 'read_note',
    description: 'Read the note saved under a title.',
    inputSchema: { type: 'object', properties: { title: { type: 'string', maxLength: MAX_TITLE_CHARS } }, required: ['title'] },
    annotations: { readOnlyHint: true },
  },
];

export class NotesServer extends Protocol<ServerRequest, ServerNotification, ServerResult> {
  constructor(private readonly storage: NoteStorage) {
    super();
    this.setRequestHandler(InitializeRequestSchema, ({ params }) => ({
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion) ? params.protocolVersion : LATEST_PROTOCOL_VERSION,
      capabilities: { tools: {} },
      serverInfo: { name: 'notes', version: '1.0.0' },
    }));
    this.setNotificationHandler(InitializedNotificationSchema, () => undefined);
    this.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
    this.setRequestHandler(CallToolRequestSchema, ({ params }) => this.call(params.name, params.arguments ?? {}));
  }

  private async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    if (name !== 'save_note' && name !== 'read_note') return failure(`unknown tool ${JSON.stringify(name)}`);
    const title = args['title'];
    if (typeof title !== 'string' || title.length === 0 || title.length > MAX_TITLE_CHARS) return failure('title must be a string of 1 to 200 characters');
    if (name === 'read_note') {
      const body = await this.storage.get(noteKey(title));
      return typeof body === 'string' ? { content: [{ type: 'text', text: body }] } : failure(`no note titled ${JSON.stringify(title)}`);
    }
    const body = args['body'];
    if (typeof body !== 'string' || body.length > MAX_BODY_CHARS) return failure('body must be a string of at most 10000 characters');
    await this.storage.put(noteKey(title), body);
    const saved = { title, chars: body.length };
    return { content: [{ type: 'text', text: JSON.stringify(saved) }], structuredContent: saved };
  }

  // This server sends no requests or notifications of its own and offers no tasks, so there
  // is no capability to check.
  protected override assertCapabilityForMethod(): void {}
  protected override assertNotificationCapability(): void {}
  protected override assertRequestHandlerCapability(): void {}
  protected override assertTaskCapability(): void {}
  protected override assertTaskHandlerCapability(): void {}
}

function noteKey(title: string): string {
  return `note/${title}`;
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
