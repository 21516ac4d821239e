/**
 * `@rulvar/core/otel` on Node: the names the engine's spans carry and a helper for linking to
 * a run's span (src/core/engine/otel.ts); the same module as on the edge.
 *
 * @module @rulvar/core/otel
 */
export * from '../core/engine/otel.js';
