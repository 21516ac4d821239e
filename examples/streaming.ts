/** Streaming: a turn's text shown as it comes (turn:delta), the scripted model standing in for a provider. */
import { createEngine, defineWorkflow } from '@rulvar/core';
import { scripted } from '@rulvar/core/testing';

// anthropic() and openaiCompatible() stream the same way; scripted() streams when asked to.
const model = scripted(['Streams arrive in pieces; the journal keeps the whole.'], { stream: { chunkChars: 8 } });
const engine = createEngine({ adapters: [model], defaults: { model: 'scripted:demo' } });
const chat = defineWorkflow({ name: 'chat' }, async (ctx) => (await ctx.agent('Say something about streams.')).text);

const handle = engine.run(chat, undefined);
const pieces: string[] = [];
handle.on('turn:delta', ({ attempt, delta }) => {
  if (attempt > 0) pieces.length = 0; // a cut stream is retried from scratch
  if (delta.type === 'text') pieces.push(delta.text);
});
const outcome = await handle.result;
console.log(pieces.join('|'));
console.log(outcome.status === 'completed' ? outcome.value : outcome.status);
