/**
 * `@rulvar/core/testing`: what a host needs to test code built on this library without a
 * provider. Runtime-neutral, like the core.
 *
 * @module @rulvar/core/testing
 */
export { scripted, type ScriptedModel, type ScriptedTurn, type Script, type ScriptedOptions, type StreamOptions } from './scripted.js';
