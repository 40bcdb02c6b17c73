/** Whether two addresses are on one site: the same host (a leading "www." aside) and port. */
export function sameSite(a: string, b: string): boolean {
  const host = (url: string) => new URL(url).hostname.replace(/^www\./, "");
  const port = (url: string) => new URL(url).port;
  return host(a) === host(b) && port(a) === port(b);
}
