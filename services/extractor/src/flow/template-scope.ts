/**
 * Whose learned templates a request reads, and whether its page may teach
 * them. Templates belong to the account that taught them (the request's
 * tenant): a template one account's pages taught never answers another
 * account's page, so no account can teach a site's locators wrong answers
 * for others. An operator may share them across accounts
 * (EXTRACT_TEMPLATES_SHARED). A request without a tenant, an internal
 * caller's, reads none (unless they are shared): it has no templates of its
 * own, since only pages the gateway's renderer fetched teach, and the
 * gateway always names the account.
 */
import { WinnowError } from "@winnow/platform";
import { SHARED_TENANT } from "../templates/signature.js";

export interface TemplateScope {
  /** Whose templates: the request's tenant, or SHARED_TENANT when templates are shared. */
  tenant: string;
  /** Whether the page teaches them. */
  learn: boolean;
}

/** As the extract request carries them (ExtractRequest.tenant and .learn). */
interface ScopeRequest {
  tenant: string;
  learn: boolean;
}

/** An account id, or an internal tenant's name: no spaces (template ids join their parts with one). */
const TENANT = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's scope; undefined when it reads and teaches no templates. Throws "invalid-request" on a bad tenant. */
export function templateScope(request: ScopeRequest, shared: boolean): TemplateScope | undefined {
  if (request.tenant !== "" && !TENANT.test(request.tenant))
    throw new WinnowError("invalid-request", "tenant must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
  if (request.learn && request.tenant === "")
    throw new WinnowError("invalid-request", "learn needs a tenant: a page teaches the templates of its account");
  // `learn` is taken as sent: only internal services reach the extractor. Once internal gRPC carries a per-role
  // credential, this is where it is honoured from the gateway's role only.
  if (shared) return { tenant: SHARED_TENANT, learn: request.learn };
  return request.tenant === "" ? undefined : { tenant: request.tenant, learn: request.learn };
}
