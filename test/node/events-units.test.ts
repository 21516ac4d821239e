/**
 * Unit tests of the run handle's event emitter (src/core/engine/events.ts): listeners per event
 * name, in the order they were added, each removable by what `on` returned; `wants` says
 * whether anyone listens (hot paths skip building events nobody reads); and a listener that
 * throws, or returns a promise that rejects, breaks neither the others nor the run.
 */
import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/core/engine/events.js';

const endEvent = (n: number) => ({ runId: 'r', agentKey: 'a', turn: n });

describe('Emitter', () => {
  it('calls the listeners of the emitted name only, in the order they were added, with the event', () => {
    const emitter = new Emitter();
    const heard: string[] = [];
    emitter.on('turn:end', (event) => heard.push(`first ${JSON.stringify(event)}`));
    emitter.on('turn:end', () => heard.push('second'));
    emitter.on('run:end', () => heard.push('run:end'));
    emitter.emit('turn:end', endEvent(1));
    expect(heard).toEqual([`first ${JSON.stringify({ runId: 'r', agentKey: 'a', turn: 1 })}`, 'second']);
    emitter.emit('approval:pending', {} as never);
    expect(heard).toHaveLength(2);
  });

  it('what on() returns removes that listener only; wants() follows', () => {
    const emitter = new Emitter();
    const heard: string[] = [];
    expect(emitter.wants('turn:end')).toBe(false);
    const offA = emitter.on('turn:end', () => heard.push('a'));
    emitter.on('turn:end', () => heard.push('b'));
    expect([emitter.wants('turn:end'), emitter.wants('run:end')]).toEqual([true, false]);
    expect(offA()).toBe(true);
    emitter.emit('turn:end', endEvent(1));
    expect(heard).toEqual(['b']);
    // Removing it again removes nothing more.
    expect(offA()).toBe(false);
    const offC = emitter.on('run:end', () => heard.push('c'));
    offC();
    expect(emitter.wants('run:end')).toBe(false);
  });

  it('the same function added twice is one listener', () => {
    const emitter = new Emitter();
    let calls = 0;
    const listener = () => void (calls += 1);
    emitter.on('turn:end', listener);
    emitter.on('turn:end', listener);
    emitter.emit('turn:end', endEvent(1));
    expect(calls).toBe(1);
  });

  it('a listener that throws, or whose promise rejects, stops no other listener and reaches nobody', async () => {
    const emitter = new Emitter();
    const heard: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      emitter.on('turn:end', () => {
        throw new Error('broken listener');
      });
      emitter.on('turn:end', () => Promise.reject(new Error('async listener failed')));
      // A thenable that is not a promise, and a return value with a `catch` that is not a function.
      emitter.on('turn:end', () => ({ catch: 'not a function' }) as never);
      emitter.on('turn:end', () => heard.push('still called'));
      expect(() => emitter.emit('turn:end', endEvent(1))).not.toThrow();
      expect(heard).toEqual(['still called']);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
