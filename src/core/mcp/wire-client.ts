/**
 * A minimal MCP client on the SDK's Protocol base. It exists instead of the SDK `Client`
 * because that class imports Ajv (code generation, refused in workerd) at module load,
 * caches output validators only for the last listed page, and throws McpError for output
 * problems. This importer owns listing, validation and notifications itself, so all it needs
 * from a client is the handshake and `request`.
 */
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientNotification,
  type ClientRequest,
  type ClientResult,
} from '@modelcontextprotocol/sdk/types.js';

export const CLIENT_INFO = Object.freeze({ name: '@rulvar/core', version: '0.1.0' });

/** The server answered the handshake with a protocol revision this client does not speak. */
export class UnsupportedProtocolError extends Error {
  override readonly name = 'UnsupportedProtocolError';
}

export class WireClient extends Protocol<ClientRequest, ClientNotification, ClientResult> {
  /** Starts the transport and runs the initialize handshake; closes itself when that fails. */
  async open(transport: Transport, options?: RequestOptions): Promise<void> {
    await this.connect(transport);
    try {
      const result = await this.request(
        {
          method: 'initialize',
          params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
        },
        InitializeResultSchema,
        options,
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new UnsupportedProtocolError(`the server answered with unsupported protocol version ${JSON.stringify(result.protocolVersion.slice(0, 40))}`);
      }
      // HTTP transports send the negotiated version as a header on every later request.
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notification({ method: 'notifications/initialized' });
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  // This client declares no capabilities and sends only initialize, tools/list, tools/call
  // and ping, so there is nothing to assert on either side.
  protected assertCapabilityForMethod(): void {}
  protected assertNotificationCapability(): void {}
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}
}
