/**
 * Whose learned templates a request reads, and whether its page may teach
 * them. Templates belong to the account that taught them (the request's
 * tenant): a template one account's pages taught never answers another
 * account's page, so no account can teach a site's locators wrong answers
 * for others. An operator may share them across accounts
 * (EXTRACT_TEMPLATES_SHARED). A request without a tenant, an internal
 * caller's, reads none (unless they are shared): it has no templates of its
 * own. Only pages the renderer fetched teach: their signature must hold
 * (page-signature.ts), so HTML a caller supplies, whoever the caller, never
 * teaches.
 */
import { pageSignatureHolds, WinnowError } from "@winnow/platform";
import { SHARED_TENANT } from "../templates/signature.js";

export interface TemplateScope {
  /** Whose templates: the request's tenant, or SHARED_TENANT when templates are shared. */
  tenant: string;
  /** Whether the page teaches them. */
  learn: boolean;
}

/** As the extract request carries them (ExtractRequest.tenant, .learn, .url, .html and .page_signature). */
interface ScopeRequest {
  tenant: string;
  learn: boolean;
  url: string;
  html: string;
  pageSignature: Uint8Array;
}

export interface ScopeSettings {
  /** Every account reads and teaches one set of templates (EXTRACT_TEMPLATES_SHARED). */
  shared: boolean;
  /** The renderer's page signing keys (several while the key rotates); none: no page teaches. */
  pageSigningKeys: readonly string[];
}

/** An account id, or an internal tenant's name: no spaces (template ids join their parts with one). */
const TENANT = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's scope; undefined when it reads and teaches no templates. Throws "invalid-request" on a bad tenant. */
export function templateScope(request: ScopeRequest, settings: ScopeSettings): TemplateScope | undefined {
  if (request.tenant !== "" && !TENANT.test(request.tenant))
    throw new WinnowError("invalid-request", "tenant must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
  if (request.learn && request.tenant === "")
    throw new WinnowError("invalid-request", "learn needs a tenant: a page teaches the templates of its account");
  const learn = request.learn && renderedHere(request, settings.pageSigningKeys);
  if (settings.shared) return { tenant: SHARED_TENANT, learn };
  return request.tenant === "" ? undefined : { tenant: request.tenant, learn };
}

/** Whether the renderer signed exactly this page, with any key it may sign with. */
function renderedHere(request: ScopeRequest, keys: readonly string[]): boolean {
  return keys.some((key) => pageSignatureHolds(key, request.url, request.html, request.pageSignature));
}
