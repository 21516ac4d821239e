/**
 * `@rulvar/core/testing`: what a host needs to test code built on this library without a
 * provider. Runtime-neutral, like the core.
 */
export { scripted, type ScriptedModel, type ScriptedTurn, type Script } from './scripted.js';
