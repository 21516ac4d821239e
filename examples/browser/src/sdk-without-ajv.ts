/**
 * Stands in for the SDK's `validation/ajv-provider.js` in this page's bundle (see
 * vite.config.ts). The SDK's `Server` constructs its default validator from that module
 * whether or not anything is ever validated, and Ajv compiles schemas with `new Function`,
 * which the page's Content-Security-Policy refuses. An SDK server uses that validator only
 * for elicitation (asking the client's user for structured input); the workbench server never
 * elicits, so here any schema it would validate is refused loudly instead of compiled.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error('this page bundles no Ajv: its MCP server must not elicit (examples/browser/vite.config.ts)');
  }
}
