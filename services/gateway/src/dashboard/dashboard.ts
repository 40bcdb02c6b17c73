import { fileURLToPath } from "node:url";
import { type AuthClient, type Logger, PROBLEM_TYPES, WinnowError } from "@winnow/platform";
import type { GetAccountResponse } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import { countRateLimited } from "../http/gateway-metrics.js";
import type { LimiterFactory } from "../http/rate-limits.js";
import { hop } from "../http/request-context.js";
import type { WebhookSecrets } from "../webhooks/webhook-secrets.js";
import { accountPage, errorPage, logInPage, playgroundPage, refreshPage, signUpPage } from "./dashboard-pages.js";
import {
  clearSessionCookie,
  csrfProtection,
  deviceToken,
  randomToken,
  sessionToken,
  setDeviceCookie,
  setSessionCookie,
} from "./dashboard-session.js";
import { KNOWN_DEVICE_SECONDS, LoginLimits, type LoginRefusal } from "./login-limits.js";

/** Mirrors the auth service's rule, so the form can say it up front. */
const MIN_PASSWORD_LENGTH = 10;
const ASSETS = fileURLToPath(new URL("../../assets/", import.meta.url));

export interface DashboardOptions {
  auth: AuthClient;
  limiters: LimiterFactory;
  /** Each account's webhook signing secret, shown on its page (absent: no batch jobs, nothing shown). */
  webhookSecrets?: WebhookSecrets;
  /** Consecutive failed log-ins per email and address before they are blocked (see LoginLimits). */
  loginAttemptsPer15Min: number;
  logger: Logger;
}

/**
 * The dashboard under /dashboard: sign up, log in and out, see and refresh
 * the key, usage, and a playground. Server-rendered; the session is an
 * HttpOnly cookie holding a token auth checks on every page (no cache, so
 * logging out or refreshing takes effect at once).
 */
export function dashboardRouter({
  auth,
  limiters,
  webhookSecrets,
  loginAttemptsPer15Min,
  logger,
}: DashboardOptions): Router {
  const router = express.Router();
  const loginLimits = new LoginLimits(limiters, { failures: loginAttemptsPer15Min });

  router.use("/assets", express.static(ASSETS, { index: false, maxAge: "1h" }));
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: "16kb" }));
  router.use(csrfProtection());

  /** The signed-in account, or undefined after sending the visitor to the log-in page. */
  const signedIn = async (
    req: Request,
    res: Response,
  ): Promise<{ token: string; account: GetAccountResponse } | undefined> => {
    const token = sessionToken(req);
    if (token) {
      try {
        return { token, account: await auth.getAccount({ sessionToken: token }, hop(res)) };
      } catch (error) {
        if (!(error instanceof WinnowError && error.type === "unauthorized")) throw error;
        clearSessionCookie(req, res);
      }
    }
    res.redirect(303, "/dashboard/login");
    return undefined;
  };

  /** Sends the 429 page for a refused attempt. */
  const refuse = (res: Response, address: string, refused: LoginRefusal) => {
    logger.warn({ address, by: refused.by }, "dashboard log-in attempts rate-limited");
    countRateLimited("dashboard_login");
    res.setHeader("Retry-After", String(refused.retryAfterSeconds));
    const from =
      refused.by === "account"
        ? "for this email address. Log in from a browser you have logged in with before, or try again"
        : "from here. Try again";
    res.status(429).send(
      errorPage({
        status: 429,
        title: "Too many attempts",
        message: `Too many attempts ${from} in ${Math.ceil(refused.retryAfterSeconds / 60)} minutes.`,
      }),
    );
  };

  const startSession = async (req: Request, res: Response, email: string, password: string) => {
    const { session } = await auth.logIn({ email, password }, hop(res));
    const device = deviceToken(req) ?? randomToken();
    await loginLimits.succeeded({ address: clientAddress(req), email, device });
    setDeviceCookie(req, res, device, KNOWN_DEVICE_SECONDS);
    setSessionCookie(req, res, session!.token, session!.expiresAt!);
    res.redirect(303, "/dashboard");
  };

  router.get("/", async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    const { account } = session;
    const { days } = await auth.getUsage({ sessionToken: session.token, accountId: "", days: 30 }, hop(res));
    res.send(
      accountPage({
        csrf: res.locals.csrfToken!,
        email: account.account!.email,
        keyId: account.keyId,
        apiKey: account.apiKey,
        webhookSecret: webhookSecrets?.forAccount(account.account!.id),
        keyCreatedAt: account.keyCreatedAt,
        requestsPerMinute: account.account!.limits!.requestsPerMinute,
        maxConcurrentScrapes: account.account!.limits!.maxConcurrentScrapes,
        usage: days,
        message: req.query.refreshed === "1" ? "Your key was refreshed. The previous key no longer works." : undefined,
      }),
    );
  });

  router.get("/login", (_req, res) => {
    res.send(logInPage({ csrf: res.locals.csrfToken! }));
  });

  router.post("/login", async (req, res) => {
    const { email, password } = credentials(req);
    const attempt = { address: clientAddress(req), email, device: deviceToken(req) };
    const refused = await loginLimits.attempt(attempt);
    if (refused) return refuse(res, attempt.address, refused);
    try {
      await startSession(req, res, email, password);
    } catch (error) {
      if (!(error instanceof WinnowError && error.type === "unauthorized")) throw error;
      await loginLimits.failed(attempt);
      res
        .status(401)
        .send(logInPage({ csrf: res.locals.csrfToken!, email, message: "The email or password is incorrect." }));
    }
  });

  router.get("/signup", (_req, res) => {
    res.send(signUpPage({ csrf: res.locals.csrfToken!, minPasswordLength: MIN_PASSWORD_LENGTH }));
  });

  router.post("/signup", async (req, res) => {
    const { email, password } = credentials(req);
    const address = clientAddress(req);
    const refused = await loginLimits.signUpAttempt(address);
    if (refused) return refuse(res, address, refused);
    const page = (status: number, message: string) =>
      res
        .status(status)
        .send(signUpPage({ csrf: res.locals.csrfToken!, email, message, minPasswordLength: MIN_PASSWORD_LENGTH }));
    try {
      await auth.createAccount({ email, password }, hop(res));
    } catch (error) {
      if (!(error instanceof WinnowError)) throw error;
      if (error.type === "invalid-request") return page(400, capitalise(error.message));
      // Neither confirms nor denies that the address has an account; not a failed log-in (it tried no password).
      if (error.type === "already-exists") {
        return page(409, "We could not create an account with these details. If you already have one, log in.");
      }
      throw error;
    }
    await startSession(req, res, email, password);
  });

  router.post("/logout", async (req, res) => {
    const token = sessionToken(req);
    if (token) await auth.logOut({ sessionToken: token }, hop(res));
    clearSessionCookie(req, res);
    res.redirect(303, "/dashboard/login");
  });

  router.get("/refresh", async (req, res) => {
    const session = await signedIn(req, res);
    if (session) res.send(refreshPage({ csrf: res.locals.csrfToken!, keyId: session.account.keyId }));
  });

  router.post("/refresh", async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    await auth.rotateSessionKey({ sessionToken: session.token }, hop(res));
    res.redirect(303, "/dashboard?refreshed=1");
  });

  router.get("/playground", async (req, res) => {
    const session = await signedIn(req, res);
    if (session) res.send(playgroundPage({ csrf: res.locals.csrfToken!, apiKey: session.account.apiKey }));
  });

  router.use((req) => {
    throw new WinnowError("not-found", `There is no dashboard page at ${req.path}.`);
  });
  router.use(dashboardErrors(logger));
  return router;
}

function clientAddress(req: Request): string {
  return req.ip ?? "unknown";
}

function credentials(req: Request): { email: string; password: string } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return { email: text(body.email).trim().toLowerCase().slice(0, 254), password: text(body.password) };
}

/** A form body the parser refused (too large, badly encoded) is the sender's problem, not ours. */
function formError(error: unknown): WinnowError | undefined {
  const type = (error as { type?: unknown })?.type;
  if (type === "entity.too.large")
    return new WinnowError("payload-too-large", "The form is larger than the dashboard accepts.");
  if (typeof type === "string" && (error as { expose?: unknown }).expose === true) {
    return new WinnowError("invalid-request", "The form could not be read; reload the page and try again.");
  }
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Failures as an HTML page with the problem type's status; details of internal ones stay in the log. */
function dashboardErrors(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    const known = error instanceof WinnowError ? error : formError(error);
    if (!known || known.type === "internal") logger.error({ err: error }, "dashboard request failed");
    const kind = PROBLEM_TYPES[known?.type ?? "internal"];
    const message =
      known && known.type !== "internal"
        ? known.message
        : "Something went wrong on our side; it has been logged. Try again.";
    res.status(kind.status).send(errorPage({ status: kind.status, title: kind.title, message }));
  };
}
