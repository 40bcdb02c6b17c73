import { WinnowError } from "./problems.js";

/** The longest page address accepted anywhere (a scrape's url, a render, an extraction). */
export const MAX_URL_LENGTH = 8192;

/**
 * The rules for a page address that every service applies where it must
 * defend itself (the gateway before any backend is asked, the renderer for
 * its own callers and for every redirect hop, the extractor for the address
 * it resolves links against): only http(s), no credentials. Addresses that
 * are or resolve to private ranges are the renderer's egress guard's call:
 * only it resolves names.
 */
export function checkTargetUrl(url: URL, path = "/url"): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WinnowError(
      "url-not-allowed",
      `the ${url.protocol.slice(0, -1)} scheme is not allowed; use http or https`,
      {
        violations: [{ path, description: "scheme must be http or https" }],
      },
    );
  }
  if (url.username || url.password) {
    throw new WinnowError("url-not-allowed", "URLs with embedded credentials are not allowed", {
      violations: [{ path, description: "must not contain a user name or password" }],
    });
  }
}

/** Parses a page address by those rules; the fragment, which never reaches a server, is dropped. */
export function parseTargetUrl(raw: string, path = "/url"): URL {
  const invalid = (description: string) =>
    new WinnowError("invalid-request", `${path.slice(1)} ${description}`, { violations: [{ path, description }] });
  const trimmed = raw.trim();
  if (!trimmed) throw invalid("is required");
  if (trimmed.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  if (!URL.canParse(trimmed)) throw invalid("must be an absolute http or https URL");
  const url = new URL(trimmed);
  checkTargetUrl(url, path);
  url.hash = "";
  return url;
}
