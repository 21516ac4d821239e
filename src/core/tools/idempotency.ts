/**
 * Where an imported MCP tool's `tools/call` request carries `ToolContext.idempotencyKey`: a
 * `_meta` member, so servers that know it can deduplicate a call the engine re-runs after a
 * crash, and servers that do not ignore it (MCP reserves `_meta` for such extensions). The
 * prefix follows MCP's naming rule for `_meta` keys: a reverse-DNS label, a slash, a name.
 */
export const IDEMPOTENCY_META_KEY = 'io.rulvar/idempotency-key';
