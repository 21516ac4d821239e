/**
 * Every string of a JSON-like value, and every key, passed through `clean`, in place. The walk
 * is iterative because a value from outside (a server's result, a provider's answer) may nest
 * deeper than the stack allows.
 */
export function scrubStrings<T>(value: T, clean: (text: string) => string): T {
  if (typeof value === 'string') return clean(value) as T;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (typeof child === 'string') record[key] = clean(child);
      else pending.push(child);
      const cleanKey = Array.isArray(record) ? key : clean(key);
      if (cleanKey !== key) {
        record[cleanKey] = record[key];
        delete record[key];
      }
    }
  }
  return value;
}
