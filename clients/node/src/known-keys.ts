/**
 * Refuses a request object with a key the client does not know. From plain JavaScript a misplaced key (a top-level
 * `evidence` instead of `options.evidence`) would otherwise be dropped without a word and the call answer something
 * else than asked.
 */
export function refuseUnknownKeys(value: object, known: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  throw new TypeError(
    `${where}: unknown ${unknown.length === 1 ? "key" : "keys"} ${unknown.map((key) => JSON.stringify(key)).join(", ")}; known: ${known.join(", ")}`,
  );
}
