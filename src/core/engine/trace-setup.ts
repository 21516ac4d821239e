/**
 * `createEngine({ tracer, traceContent })` checked once: a tracer must have `startSpan`, and
 * what its spans record is scrubbed with every `redact` the engine's adapters declare (the
 * same redaction their answers get before the journal sees them), whatever the text came
 * from: a model's answer, a tool's result, an error.
 */
import { ConfigError } from '../errors.js';
import { declaredRedact } from '../model/redact-answer.js';
import type { ModelAdapter } from '../model/types.js';
import { cleaner } from './trace-span.js';
import { RunTrace } from './tracing.js';
import type { EngineOptions } from './types.js';

/** How this engine makes a run's trace; undefined without a tracer, so untraced runs hold none. */
export function tracingOf(options: EngineOptions, adapters: ReadonlyMap<string, ModelAdapter>): ((runId: string, workflow: string, resumed: boolean) => RunTrace) | undefined {
  const { tracer, traceContent } = options;
  if (tracer === undefined) return undefined;
  let startSpan: unknown;
  try {
    startSpan = tracer?.startSpan;
  } catch {
    // A tracer whose getter throws is no tracer.
  }
  if (typeof startSpan !== 'function') throw new ConfigError('config.invalid_value', 'tracer must be an OpenTelemetry Tracer (an object with startSpan)');
  if (traceContent !== undefined && typeof traceContent !== 'boolean') throw new ConfigError('config.invalid_value', 'traceContent must be true or false');
  const redacts: ((text: string) => unknown)[] = [];
  for (const adapter of adapters.values()) {
    const redact = declaredRedact(adapter);
    if (redact === undefined) continue;
    // Declared but unusable (a getter that throws, not a function): what it was to scrub is
    // not recorded at all, as the journal hides what such a redact was given (redact-answer.ts).
    const usable = typeof redact === 'function' ? (redact as (text: string) => unknown) : undefined;
    redacts.push((text) => (usable === undefined ? undefined : usable.call(adapter, text)));
  }
  const clean = cleaner(redacts);
  return (runId, workflow, resumed) => new RunTrace(tracer, traceContent === true, clean, runId, workflow, resumed);
}
