/**
 * The default ToolSource id. It must never carry a secret: for HTTP only the host and path
 * are used (a query string or userinfo can hold a token), for stdio only the command name.
 */
import type { McpConfig } from './config-types.js';

export function defaultSourceId(config: McpConfig): string {
  const scope = config.prefix === undefined ? '' : `${config.prefix}@`;
  switch (config.transport) {
    case 'stdio': {
      const command = config.command.split(/[\\/]/).pop() ?? config.command;
      return `mcp:${scope}stdio:${command}`;
    }
    case 'streamable-http': {
      const url = new URL(String(config.url));
      return `mcp:${scope}http:${url.host}${url.pathname}`;
    }
    case 'inprocess':
      return `mcp:${scope}inprocess`;
  }
}
