/**
 * Deep freezing for snapshots: a resolved toolset must not change under a running agent.
 * Iterative, because a hostile schema can nest deeper than the call stack.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop() as Record<PropertyKey, unknown>;
    // Primitives and null count as frozen, so only an object not yet frozen gets past here.
    if (Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const key of Reflect.ownKeys(next)) pending.push(next[key]);
  }
  return value;
}
