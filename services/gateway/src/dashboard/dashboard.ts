import { fileURLToPath } from "node:url";
import { type AuthClient, type Logger, PROBLEM_TYPES, WinnowError } from "@winnow/platform";
import type { GetAccountResponse } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from "express";
import { countRateLimited } from "../http/gateway-metrics.js";
import type { LimiterFactory } from "../http/rate-limits.js";
import { hop } from "../http/request-context.js";
import type { WebhookSecretCache } from "../webhooks/webhook-secret-cache.js";
import {
  accountPage,
  errorPage,
  logInPage,
  passwordPage,
  playgroundPage,
  refreshPage,
  signUpPage,
} from "./dashboard-pages.js";
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
  /** The webhook signing secrets the account page shows and rotates; none without batch jobs. */
  webhookSecrets: WebhookSecretCache | undefined;
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
    const secrets = webhookSecrets && (await webhookSecrets.secrets(account.account!.id, hop(res)));
    res.send(
      accountPage({
        csrf: res.locals.csrfToken!,
        email: account.account!.email,
        keyId: account.keyId,
        apiKey: account.apiKey,
        webhookSecrets: secrets,
        keyCreatedAt: account.keyCreatedAt,
        requestsPerMinute: account.account!.limits!.requestsPerMinute,
        maxConcurrentScrapes: account.account!.limits!.maxConcurrentScrapes,
        usage: days,
        origin: `${req.protocol}://${req.get("host")}`,
        message:
          req.query.refreshed === "1"
            ? "Your key was refreshed. The previous key no longer works."
            : req.query["webhook-secret"] === "rotated"
              ? "Your webhook secret was rotated. Deliveries are signed with both secrets until the previous one expires."
              : req.query.password === "changed"
                ? "Your password was changed. Other browsers logged in to this account were logged out."
                : undefined,
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

  router.get("/password", async (req, res) => {
    const session = await signedIn(req, res);
    if (session) res.send(passwordPage({ csrf: res.locals.csrfToken!, minPasswordLength: MIN_PASSWORD_LENGTH }));
  });

  router.post("/password", async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    const page = (status: number, message: string) =>
      res
        .status(status)
        .send(passwordPage({ csrf: res.locals.csrfToken!, message, minPasswordLength: MIN_PASSWORD_LENGTH }));
    // A wrong current password counts as a failed log-in of this account from this address and browser.
    const attempt = { address: clientAddress(req), email: session.account.account!.email, device: deviceToken(req) };
    const refused = await loginLimits.attempt(attempt);
    if (refused) return refuse(res, attempt.address, refused);
    try {
      await auth.changePassword(
        {
          sessionToken: session.token,
          currentPassword: formField(req, "current_password"),
          newPassword: formField(req, "new_password"),
        },
        hop(res),
      );
    } catch (error) {
      if (!(error instanceof WinnowError)) throw error;
      if (error.type === "invalid-request") return page(400, capitalise(error.message));
      if (error.type !== "unauthorized") throw error;
      await loginLimits.failed(attempt);
      return page(401, "The current password is incorrect.");
    }
    res.redirect(303, "/dashboard?password=changed");
  });

  router.post("/webhook-secret", async (req, res) => {
    const session = await signedIn(req, res);
    if (!session) return;
    if (!webhookSecrets) throw new WinnowError("not-found", "This server runs no batch jobs, so it sends no webhooks.");
    await webhookSecrets.rotate(session.account.account!.id, hop(res), session.token);
    res.redirect(303, "/dashboard?webhook-secret=rotated");
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
  return { email: formField(req, "email").trim().toLowerCase().slice(0, 254), password: formField(req, "password") };
}

/** A form field's text; "" when the form lacks it. */
function formField(req: Request, name: string): string {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === "string" ? value : "";
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
