/**
 * The default ToolSource id. It must never carry a secret: for HTTP only the host is used
 * (a path, query string or userinfo can hold a token), for stdio only the command name.
 */
import type { McpConfig } from './config-types.js';

export function defaultSourceId(config: McpConfig): string {
  const scope = config.prefix === undefined ? '' : `${config.prefix}@`;
  switch (config.transport) {
    case 'stdio': {
      const command = config.command.split(/[\\/]/).pop() ?? config.command;
      return `mcp:${scope}stdio:${command}`;
    }
    case 'streamable-http':
      // The host only: hosted MCP services often put an access token in the path.
      return `mcp:${scope}http:${new URL(String(config.url)).host}`;
    case 'inprocess':
      return `mcp:${scope}inprocess`;
  }
}
