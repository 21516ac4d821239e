/** The workbench server over stdio: `node --import tsx examples/servers/workbench-stdio.ts`. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createWorkbenchServer } from './workbench.js';

await createWorkbenchServer().connect(new StdioServerTransport());
