import { promises as dns } from "node:dns";

export type Lookup = (hostname: string) => Promise<string[]>;

/** The first wait for a DNS server's answer; c-ares doubles it on the retry. */
const QUERY_TIMEOUT_MS = 1000;
const QUERY_TRIES = 2;

/**
 * Resolves a target's name by asking the DNS servers of /etc/resolv.conf (or `servers`) directly, A and AAAA at
 * once, a lost answer asked again after a second. The system resolver (getaddrinfo, behind dns.lookup) waits
 * resolv.conf's timeout, 5 s by default, for a lost answer while it holds one of libuv's four threads, so every
 * lookup after it queues too; resolvers do lose answers when a page names a dozen hosts at once. Targets are public
 * names: /etc/hosts is not read.
 */
export function dnsLookup(servers?: string[]): Lookup {
  const resolver = new dns.Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  if (servers) resolver.setServers(servers);
  return async (hostname) => {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = answers.flatMap((answer) => (answer.status === "fulfilled" ? answer.value : []));
    const failure = answers.find((answer) => answer.status === "rejected");
    if (addresses.length === 0 && failure) throw failure.reason;
    return addresses;
  };
}
