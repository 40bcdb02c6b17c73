/** Where a client sends its calls, and with which key. */
export interface Connection {
  apiKey: string;
  baseUrl: string;
}

/** The key and base URL given, else WINNOW_API_KEY and WINNOW_BASE_URL (else the local stack); `who` names the class in errors. */
export function connectionOf(options: { apiKey?: string; baseUrl?: string }, who: string): Connection {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  const apiKey = options.apiKey ?? env.WINNOW_API_KEY;
  if (!apiKey) throw new TypeError(`${who}: pass apiKey or set the WINNOW_API_KEY environment variable`);
  return { apiKey, baseUrl: (options.baseUrl ?? env.WINNOW_BASE_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "") };
}
