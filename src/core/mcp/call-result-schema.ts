/**
 * The shape a `tools/call` result is parsed with. Deliberately looser than the SDK's
 * CallToolResultSchema in one place: content blocks of a type this code has never heard of
 * are kept (as typed parts, in order) instead of failing the whole result, so a server on a
 * newer protocol revision still reaches the model. Everything else is as strict as MCP.
 */
import * as z from 'zod/v4';

const ContentBlock = z.looseObject({ type: z.string() });

export const LenientCallToolResultSchema = z.looseObject({
  content: z.array(ContentBlock).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

export type LenientCallToolResult = z.infer<typeof LenientCallToolResultSchema>;
export type ContentBlock = z.infer<typeof ContentBlock>;
