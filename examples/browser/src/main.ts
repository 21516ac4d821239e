/**
 * The entry. The MCP SDK parses every message with zod, and zod decides when a schema is
 * built whether to compile its parser with `new Function`; the SDK (and the library) build
 * their schemas as their modules load. So zod is configured first and the page, which brings
 * them, is loaded after. Under this page's Content-Security-Policy even zod's probe for eval
 * would be reported as a violation.
 */
import { config } from 'zod';
import { showPageError } from './dom.js';

config({ jitless: true });
const { start } = await import('./page.js');
await start().catch(showPageError);
