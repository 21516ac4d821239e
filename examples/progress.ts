/** A long tool's progress, as events on the run handle (README, "Tool progress"). */
import { createEngine, defineWorkflow, tool } from '@rulvar/core';
import { scripted } from '@rulvar/core/testing';

const fetchReport = tool({
  name: 'fetch_report',
  description: 'Fetch every page of the report.',
  parameters: { type: 'object' },
  execute: async (_input, ctx) => {
    for (let page = 1; page <= 3; page += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150)); // a slow page
      ctx.progress?.(page, 3, `page ${page} of 3`);
    }
    return 'fetched 3 pages';
  },
});
const model = scripted([{ toolCalls: [{ name: 'fetch_report', input: {} }] }, 'Here is the report.']);
const report = defineWorkflow({ name: 'report' }, (ctx) => ctx.agent('Fetch the report', { tools: [fetchReport] }));

const handle = createEngine({ adapters: [model], defaults: { model: 'scripted:any' } }).run(report, undefined);
handle.on('tool:progress', (event) => console.log(`${event.toolName}: ${event.progress}/${event.total} (${event.message})`));
console.log((await handle.result).status);
