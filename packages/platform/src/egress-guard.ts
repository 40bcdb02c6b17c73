import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { dnsLookup, type Lookup } from "./dns-lookup.js";
import { WinnowError } from "./problems.js";
import { checkTargetUrl } from "./target-url.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/**
 * Explicit exceptions to the egress guard, for tests and private deployments:
 * address ranges (CIDR or a bare IP) and host:port pairs.
 */
export interface EgressAllowlist {
  readonly cidrs: readonly Cidr[];
  /** "host|port" keys; host is a lower-case name or a normalized IP. */
  readonly hostPorts: ReadonlySet<string>;
}

const EMPTY_ALLOWLIST: EgressAllowlist = { cidrs: [], hostPorts: new Set() };

/**
 * Parses WINNOW_EGRESS_ALLOW: comma-separated entries, each a CIDR
 * (`127.0.0.0/8`, `::1/128`), a bare IP, or `host:port` (`127.0.0.1:8081`,
 * `[::1]:8081`, `fixtures.internal:443`). Throws an Error naming the first bad entry.
 */
export function parseEgressAllowlist(value: string | undefined): EgressAllowlist {
  const cidrs: Cidr[] = [];
  const hostPorts = new Set<string>();
  for (const raw of (value ?? "").split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    if (entry.includes("/")) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a valid CIDR range`);
      cidrs.push(ipaddr.parseCIDR(entry));
    } else if (isIP(entry)) {
      const address = ipaddr.parse(entry);
      cidrs.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else {
      hostPorts.add(parseHostPort(entry));
    }
  }
  return { cidrs, hostPorts };
}

function parseHostPort(entry: string): string {
  const match = /^([^/@?#\s]+):(\d{1,5})$/.exec(entry);
  const port = Number(match?.[2]);
  if (!match?.[1] || port < 1 || port > 65535) {
    throw new Error(`"${entry}" is neither a CIDR range, an IP address nor host:port (IPv6 as [addr]:port)`);
  }
  let hostname: string;
  try {
    hostname = new URL(`http://${match[1]}/`).hostname;
  } catch {
    throw new Error(`"${entry}" does not name a valid host`);
  }
  return hostPortKey(hostname, port);
}

/** The URL parser has already normalized odd IPv4 forms; IPv6 comes bracketed. */
function hostPortKey(hostname: string, port: number): string {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return `${isIP(bare) ? ipaddr.parse(bare).toString() : bare}|${port}`;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

/**
 * True only for publicly routable unicast addresses. IPv6 forms that embed an
 * IPv4 address (mapped, translated, NAT64, 6to4, Teredo) are judged by the
 * IPv4 address they lead to.
 */
export function isPublicAddress(address: Address): boolean {
  if (address instanceof ipaddr.IPv4) return address.range() === "unicast";
  const embedded = embeddedIPv4(address);
  if (embedded) return embedded.length > 0 && embedded.every(isPublicAddress);
  // Outside 2000::/3 nothing is allocated for global unicast (::/8 holds the
  // deprecated IPv4-compatible form, fc00::/7 and fe80::/10 are local).
  return address.match(GLOBAL_UNICAST_V6) && address.range() === "unicast";
}

/** The IPv4 addresses an IPv6 address leads to; [] when it embeds one we cannot trust; undefined when none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  const v4 = (offset: number, mask = 0) => new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => b ^ mask));
  switch (address.range()) {
    case "ipv4Mapped":
    case "rfc6145":
      return [v4(12)];
    case "rfc6052":
      // Only the well-known NAT64 prefix has a fixed layout; 64:ff9b:1::/48 is for local use.
      return address.match(NAT64_WELL_KNOWN) ? [v4(12)] : [];
    case "6to4":
      return [v4(2)];
    case "teredo":
      // Teredo server, then the client address stored inverted.
      return [v4(4), v4(12, 0xff)];
    default:
      return undefined;
  }
}

/** Where a request may go: the one checked address to connect to, never looked up again. */
export interface PinnedTarget {
  address: string;
  family: 4 | 6;
}

/**
 * Decides whether the renderer may fetch a URL: only http(s), no credentials,
 * and every address the host resolves to must be public (or allowlisted).
 * `pin` hands back the checked address so callers connect to exactly it:
 * a DNS answer that changes after the check (rebinding) is never used.
 */
export class EgressGuard {
  /** Lookups under way by host name: the system resolver has few threads, and pages name the same hosts at once. */
  readonly #resolving = new Map<string, Promise<string[]>>();

  constructor(
    private readonly allowlist: EgressAllowlist = EMPTY_ALLOWLIST,
    private readonly lookup: Lookup = dnsLookup(),
  ) {}

  /** Resolves to the reason the URL is refused, or undefined when it may be fetched. */
  async refusal(url: URL): Promise<WinnowError | undefined> {
    try {
      await this.pinUrl(url);
      return undefined;
    } catch (error) {
      if (error instanceof WinnowError) return error;
      throw error;
    }
  }

  async assertAllowed(url: URL): Promise<void> {
    await this.pinUrl(url);
  }

  /** Checks scheme and credentials, then pins the URL's host; throws a WinnowError when refused. */
  async pinUrl(url: URL): Promise<PinnedTarget> {
    checkTargetUrl(url);
    return this.pin(url.hostname, Number(url.port || (url.protocol === "https:" ? 443 : 80)));
  }

  /**
   * Resolves the host once and checks every address; resolves to the address
   * to connect to. Messages name the host, never a resolved address.
   */
  async pin(host: string, port: number): Promise<PinnedTarget> {
    const hostname = host.replace(/^\[|\]$/g, "").toLowerCase();
    const literal = isIP(hostname) ? hostname : canonicalIPv4(hostname);
    const allowedByName = this.allowlist.hostPorts.has(hostPortKey(hostname, port));
    // Resolvers answer *.localhost locally, whatever DNS says.
    if (!literal && !allowedByName && /(^|\.)localhost\.?$/.test(hostname))
      throw notPublic(`${hostname} is a local address`, hostname, port);

    let addresses: string[];
    try {
      addresses = literal ? [literal] : await this.#resolve(hostname);
    } catch (error) {
      throw new WinnowError("target-unreachable", `could not resolve ${hostname}`, { cause: error });
    }
    if (addresses.length === 0) throw new WinnowError("target-unreachable", `${hostname} has no addresses`);
    if (!allowedByName && !addresses.every((address) => this.#addressAllowed(ipaddr.parse(address), port))) {
      throw notPublic(
        literal ? `${hostname} is not a public address` : `${hostname} resolves to an address that is not public`,
        hostname,
        port,
      );
    }
    const address = addresses[0]!;
    return { address, family: isIP(address) === 6 ? 6 : 4 };
  }

  /** One lookup per host at a time; each answer is used once, by the callers waiting when it came. */
  #resolve(hostname: string): Promise<string[]> {
    let resolving = this.#resolving.get(hostname);
    if (!resolving) {
      resolving = this.lookup(hostname).finally(() => this.#resolving.delete(hostname));
      this.#resolving.set(hostname, resolving);
    }
    return resolving;
  }

  #addressAllowed(address: Address, port: number): boolean {
    if (isPublicAddress(address)) return true;
    const forms = [address, ipaddr.process(address.toString())];
    return forms.some(
      (form) =>
        this.allowlist.hostPorts.has(`${form.toString()}|${port}`) ||
        this.allowlist.cidrs.some((range) => range[0].kind() === form.kind() && form.match(range)),
    );
  }
}

/**
 * The dotted-quad form of a host written as a decimal, octal or hex IPv4
 * address ("2130706433", "0177.1", "0x7f.1"); undefined for real names.
 * WHATWG URLs normalize these already; CONNECT targets and Host headers do not.
 */
function canonicalIPv4(hostname: string): string | undefined {
  try {
    const normalized = new URL(`http://${hostname}/`).hostname;
    return isIP(normalized) === 4 ? normalized : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal a local test site or an intranet page meets first: it says how an operator allows it. */
function notPublic(message: string, hostname: string, port: number): WinnowError {
  const host = isIP(hostname) === 6 ? `[${hostname}]` : hostname;
  return notAllowed(
    `${message}; to scrape private or local addresses (a test site, an intranet), the operator lists them in the renderer's WINNOW_EGRESS_ALLOW, e.g. WINNOW_EGRESS_ALLOW=${host}:${port}`,
  );
}

function notAllowed(message: string): WinnowError {
  return new WinnowError("url-not-allowed", message);
}

/**
 * A per-render view of the guard for the many requests one page makes:
 * verdicts are remembered per scheme, credentials and host:port.
 */
export function memoizedRefusal(guard: EgressGuard): (url: string) => Promise<WinnowError | undefined> {
  const verdicts = new Map<string, Promise<WinnowError | undefined>>();
  return (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return Promise.resolve(notAllowed("unparsable URL"));
    }
    const key = `${url.protocol}//${url.username}:${url.password}@${url.host}`;
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = guard.refusal(url);
      verdicts.set(key, verdict);
    }
    return verdict;
  };
}

/** A connector lookup that answers the address the guard checked, whatever DNS says now. */
export function pinnedLookup(pin: PinnedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pin]);
    else callback(null, pin.address, pin.family);
  };
}
