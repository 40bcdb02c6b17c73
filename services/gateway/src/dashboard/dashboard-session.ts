import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import { parse } from "cookie";
import type { CookieOptions, Request, RequestHandler, Response } from "express";

const SESSION_COOKIE = "winnow_session";
const CSRF_COOKIE = "winnow_csrf";
const CSRF_FIELD = "_csrf";
const DEVICE_COOKIE = "winnow_device";
const RANDOM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * A cookie's name for this request: over TLS with the __Host- prefix, which
 * browsers accept only Secure, for this host alone and Path=/, so neither a
 * sibling subdomain nor a plain-http page can plant it.
 */
function cookieName(req: Request, name: string): string {
  return req.secure ? `__Host-${name}` : name;
}

/** HttpOnly always; Secure whenever the request came over TLS (directly or, with TRUST_PROXY, through a proxy). */
function cookieOptions(req: Request, sameSite: "lax" | "strict"): CookieOptions {
  return { httpOnly: true, sameSite, secure: req.secure, path: req.secure ? "/" : "/dashboard" };
}

function cookies(req: Request): Record<string, string | undefined> {
  return parse(req.headers.cookie ?? "");
}

/** The session token the browser sent, if any. */
export function sessionToken(req: Request): string | undefined {
  return cookies(req)[cookieName(req, SESSION_COOKIE)];
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  res.cookie(cookieName(req, SESSION_COOKIE), token, { ...cookieOptions(req, "lax"), expires: expiresAt });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(cookieName(req, SESSION_COOKIE), cookieOptions(req, "lax"));
}

/**
 * This browser's known-device token (see LoginLimits), kept across log-outs:
 * the one it sent, if well formed. Sent back on every successful log-in, which
 * renews it for `maxAgeSeconds`.
 */
export function deviceToken(req: Request): string | undefined {
  const sent = cookies(req)[cookieName(req, DEVICE_COOKIE)];
  return sent && RANDOM_TOKEN.test(sent) ? sent : undefined;
}

export function setDeviceCookie(req: Request, res: Response, token: string, maxAgeSeconds: number): void {
  res.cookie(cookieName(req, DEVICE_COOKIE), token, { ...cookieOptions(req, "strict"), maxAge: maxAgeSeconds * 1000 });
}

/** 256 random bits, as the CSRF binding and the known-device token are. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * CSRF protection. A form's token is bound to the session it was made for:
 * derived from the session token when signed in, else from a random value in
 * a SameSite=Strict cookie (the log-in and sign-up forms). A token taken from
 * another session, with its cookie planted beside the victim's session, does
 * not match. A hash suffices, no key: what it is derived from is a 256-bit
 * secret in an HttpOnly cookie, and every gateway replica derives the same.
 * A POST must also come from this very origin by its Origin or, without one,
 * its Referer; with neither it is refused (browsers send Origin on cross-site
 * posts, and a Referer on same-origin ones under Referrer-Policy: same-origin).
 */
export function csrfProtection(): RequestHandler {
  return (req, res, next) => {
    let binding = sessionToken(req);
    if (!binding) {
      binding = cookies(req)[cookieName(req, CSRF_COOKIE)];
      if (!binding || !RANDOM_TOKEN.test(binding)) {
        binding = randomToken();
        res.cookie(cookieName(req, CSRF_COOKIE), binding, cookieOptions(req, "strict"));
      }
    }
    const token = createHash("sha256").update("winnow dashboard form\0").update(binding).digest("base64url");
    res.locals.csrfToken = token;
    if (req.method === "POST") {
      if (!fromThisOrigin(req)) throw new WinnowError("forbidden", "This form was not sent from this site.");
      const sent = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      if (typeof sent !== "string" || !sameSecret(sent, token)) {
        throw new WinnowError("forbidden", "This form has expired; reload the page and try again.");
      }
    }
    next();
  };
}

function fromThisOrigin(req: Request): boolean {
  const expected = `${req.protocol}://${req.get("host")}`;
  const origin = req.get("origin");
  if (origin !== undefined) return origin === expected;
  const referer = req.get("referer");
  return referer !== undefined && URL.canParse(referer) && new URL(referer).origin === expected;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

declare global {
  namespace Express {
    interface Locals {
      csrfToken?: string;
    }
  }
}
