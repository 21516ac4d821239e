/** `@rulvar/core/otel` on the edge: the same module as on Node (src/core/engine/otel.ts). */
export * from '../core/engine/otel.js';
