/**
 * A function of a text, remembered by that text: a list repeats the same few labels, class attributes, names and
 * currency words in every record. Bounded: past `max` texts it starts afresh, which costs these hot paths less than
 * an LRU's bookkeeping, and a page of more distinct texts only reads them again.
 */
export function rememberedByText<T>(read: (text: string) => T, max = 5_000): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    const found = known.get(text);
    if (found !== undefined || known.has(text)) return found as T;
    if (known.size >= max) known.clear();
    const value = read(text);
    known.set(text, value);
    return value;
  };
}
