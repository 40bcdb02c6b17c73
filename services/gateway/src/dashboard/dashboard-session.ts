import { randomBytes, timingSafeEqual } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import { parse } from "cookie";
import type { CookieOptions, Request, RequestHandler, Response } from "express";

export const SESSION_COOKIE = "winnow_session";
const CSRF_COOKIE = "winnow_csrf";
const CSRF_FIELD = "_csrf";

/** HttpOnly always; Secure whenever the request came over TLS (directly or, with TRUST_PROXY, through a proxy). */
function cookieOptions(req: Request, sameSite: "lax" | "strict"): CookieOptions {
  return { httpOnly: true, sameSite, secure: req.secure, path: "/dashboard" };
}

export function cookies(req: Request): Record<string, string | undefined> {
  return parse(req.headers.cookie ?? "");
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, { ...cookieOptions(req, "lax"), expires: expiresAt });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(req, "lax"));
}

/**
 * Double-submit CSRF protection: every dashboard page gets a random token in
 * a SameSite=Strict cookie and in its forms; a POST must carry both, equal
 * (compared in constant time), and, when the browser sends an Origin, come
 * from this very origin.
 */
export function csrfProtection(): RequestHandler {
  return (req, res, next) => {
    let token = cookies(req)[CSRF_COOKIE];
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
      token = randomBytes(32).toString("base64url");
      res.cookie(CSRF_COOKIE, token, cookieOptions(req, "strict"));
    }
    res.locals.csrfToken = token;
    if (req.method === "POST") {
      const origin = req.get("origin");
      if (origin !== undefined && origin !== `${req.protocol}://${req.get("host")}`) {
        throw new WinnowError("forbidden", "This form was sent from another site.");
      }
      const sent = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      if (typeof sent !== "string" || !sameSecret(sent, token)) {
        throw new WinnowError("forbidden", "This form has expired; reload the page and try again.");
      }
    }
    next();
  };
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
