/** The dashboard's pages: server-rendered HTML, every interpolated value escaped. */

import type { UsageDay, WebhookSecret } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { FIELD_STATUSES } from "../docs/openapi.js";
import { escapeHtml } from "../http/escape-html.js";

/** HTML that has been escaped already (or is markup we wrote). */
class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = string | number | Html | Html[] | undefined;

function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const text =
      value === undefined
        ? ""
        : value instanceof Html
          ? value.text
          : Array.isArray(value)
            ? value.map((v) => v.text).join("")
            : escapeHtml(String(value));
    out += text + strings[i + 1]!;
  });
  return new Html(out);
}

function layout(title: string, body: Html, signedIn = false, csrf?: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Winnow</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">Winnow</a>
  ${
    signedIn && csrf
      ? html`<nav><a href="/dashboard">Key and usage</a> <a href="/dashboard/playground">Playground</a> <a href="/docs">API docs</a>
  <form method="post" action="/dashboard/logout" class="inline">${csrfField(csrf)}<button type="submit">Log out</button></form></nav>`
      : html`<nav><a href="/docs">API docs</a></nav>`
  }
</header>
<main>
${body}
</main>
</body>
</html>
`.text;
}

function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

function notice(message: string | undefined, kind: "error" | "info" = "error"): Html | undefined {
  return message ? html`<p class="${kind}" role="${kind === "error" ? "alert" : "status"}">${message}</p>` : undefined;
}

export interface CredentialsPage {
  csrf: string;
  email?: string;
  message?: string;
}

export function logInPage({ csrf, email, message }: CredentialsPage): string {
  return layout(
    "Log in",
    html`<h1>Log in</h1>
${notice(message)}
<form method="post" action="/dashboard/login" class="card">
  ${csrfField(csrf)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${email}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Log in</button>
</form>
<p>No account yet? <a href="/dashboard/signup">Sign up</a></p>`,
  );
}

export function signUpPage({
  csrf,
  email,
  message,
  minPasswordLength,
}: CredentialsPage & { minPasswordLength: number }): string {
  return layout(
    "Sign up",
    html`<h1>Create your Winnow account</h1>
${notice(message)}
<form method="post" action="/dashboard/signup" class="card">
  ${csrfField(csrf)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${email}">
  <label for="password">Password (at least ${minPasswordLength} characters, not easy to guess: a few uncommon words do)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="${minPasswordLength}" required>
  <button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="/dashboard/login">Log in</a></p>`,
  );
}

export interface AccountPage {
  csrf: string;
  email: string;
  keyId: string;
  apiKey: string;
  /** What the account's batch webhooks are signed with: the current secret first, then one in its grace. */
  webhookSecrets: WebhookSecret[] | undefined;
  keyCreatedAt: Date | undefined;
  requestsPerMinute: number;
  maxConcurrentScrapes: number;
  usage: UsageDay[];
  /** This gateway's address as the browser reached it, for the example. */
  origin: string;
  message?: string;
}

export function accountPage(page: AccountPage): string {
  const key = page.apiKey
    ? html`<label for="api-key">Your API key (send it as the <code>x-api-key</code> header)</label>
<div class="key-row">
  <input id="api-key" type="password" readonly value="${page.apiKey}" autocomplete="off" spellcheck="false">
  <button type="button" id="reveal-key" aria-controls="api-key">Reveal</button>
  <button type="button" id="copy-key" aria-controls="api-key">Copy</button>
</div>
<p class="muted">Key id <code>${page.keyId}</code>${page.keyCreatedAt ? html`, created ${page.keyCreatedAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : undefined}.</p>
<p id="copy-status" class="muted" role="status" aria-live="polite"></p>`
    : html`<p>This account's key was issued before keys could be shown again. Refresh it to get one you can see here.</p>`;
  const rows = page.usage.map(
    (row) =>
      html`<tr><td>${row.day}</td><td><code>${row.keyId}</code></td><td>${row.scrapes}</td><td>${row.byPath?.cache ?? 0}</td><td>${row.byPath?.template ?? 0}</td><td>${row.byPath?.builtin ?? 0}</td><td>${row.byPath?.model ?? 0}</td><td>${row.tokensIn}</td><td>${row.tokensOut}</td></tr>`,
  );
  return layout(
    "Your key",
    html`<h1>Your API key</h1>
<p class="muted">Signed in as ${page.email}</p>
${notice(page.message, "info")}
<section class="card" aria-labelledby="key-heading">
<h2 id="key-heading">Key</h2>
${key}
<p><a class="button danger" href="/dashboard/refresh">Refresh key…</a> <a class="button" href="/dashboard/password">Change password…</a></p>
${page.webhookSecrets ? webhookSecretSection(page.csrf, page.webhookSecrets) : undefined}
<p class="muted">Plan limits: ${page.requestsPerMinute} requests per minute, ${page.maxConcurrentScrapes} scrapes at a time.</p>
</section>
<section class="card" aria-labelledby="usage-heading">
<h2 id="usage-heading">Usage (last 30 days, UTC)</h2>
${
  rows.length > 0
    ? html`<p class="scroll-hint muted" hidden>Scroll the table sideways for all nine columns →</p>
<div class="scroll" id="usage"><table><thead><tr><th scope="col">Day</th><th scope="col">Key</th><th scope="col">Scrapes</th><th scope="col" title="answered from cache: no render, no model call">Cache</th><th scope="col" title="answered by a template learned for the site">Template</th><th scope="col" title="answered by the builtin engine, no model call">Builtin</th><th scope="col" title="the model was called">Model</th><th scope="col" title="model tokens sent">Tokens in</th><th scope="col" title="model tokens received">Tokens out</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>No scrapes yet. Try the <a href="/dashboard/playground">playground</a>, or:</p>`
}
<pre class="example"><code>curl -X POST ${page.origin}/scrape \\
  -H 'content-type: application/json' -H 'x-api-key: ${page.apiKey ?? "<your API key>"}' \\
  -d '{"url":"https://example.com","schema":{"title":"string"}}'</code></pre>
</section>`,
    true,
    page.csrf,
  );
}

/** The webhook signing secret, when the previous one stops signing (during a rotation's grace), and a rotation. */
function webhookSecretSection(csrf: string, secrets: WebhookSecret[]) {
  const expiresAt = secrets.find((secret) => secret.expiresAt)?.expiresAt;
  return html`<label for="webhook-secret">Webhook signing secret (verify the <code>Winnow-Signature</code> header of batch webhooks with it; see /docs)</label>
<input id="webhook-secret" type="text" readonly value="${secrets[0]!.secret}" autocomplete="off" spellcheck="false">
${expiresAt ? html`<p class="muted">The previous secret still signs deliveries (beside this one) until ${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC.</p>` : undefined}
<form method="post" action="/dashboard/webhook-secret">
  ${csrfField(csrf)}
  <button type="submit">Rotate webhook secret</button>
  <span class="muted">Deliveries are signed with both secrets for a grace period; rotate twice to end the old one at once.</span>
</form>`;
}

export function passwordPage({
  csrf,
  message,
  minPasswordLength,
}: {
  csrf: string;
  message?: string;
  minPasswordLength: number;
}): string {
  return layout(
    "Change password",
    html`<h1>Change your password</h1>
${notice(message)}
<form method="post" action="/dashboard/password" class="card">
  ${csrfField(csrf)}
  <label for="current-password">Current password</label>
  <input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
  <label for="new-password">New password (at least ${minPasswordLength} characters, not easy to guess)</label>
  <input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="${minPasswordLength}" required>
  <p class="muted">Every other browser logged in to this account is logged out.</p>
  <button type="submit">Change password</button>
  <a class="button" href="/dashboard">Cancel</a>
</form>`,
    true,
    csrf,
  );
}

export function refreshPage({ csrf, keyId }: { csrf: string; keyId: string }): string {
  return layout(
    "Refresh key",
    html`<h1>Refresh your API key?</h1>
<div class="card">
<p>A new key replaces <code>${keyId || "your current key"}</code>. <strong>The current key stops working at once</strong>: every program using it gets 401 until you give it the new key.</p>
<form method="post" action="/dashboard/refresh">
  ${csrfField(csrf)}
  <button type="submit" class="danger">Yes, refresh my key</button>
  <a class="button" href="/dashboard">Cancel</a>
</form>
</div>`,
    true,
    csrf,
  );
}

export function playgroundPage({ csrf, apiKey }: { csrf: string; apiKey: string }): string {
  return layout(
    "Playground",
    html`<h1>Playground</h1>
<p class="muted">Runs a real scrape with your key (it counts towards your usage and limits).</p>
<form id="playground" class="card" data-api-key="${apiKey}">
  <label for="url">Page URL</label>
  <input id="url" name="url" type="url" required placeholder="https://example.com/product/42">
  <label for="schema">Schema (JSON: field names and types)</label>
  <textarea id="schema" name="schema" rows="6" required spellcheck="false">{ "title": "string", "price": "number" }</textarea>
  <label for="task">Task description (optional)</label>
  <input id="task" name="task" type="text" placeholder="e.g. the price is the discounted one">
  <label for="wait_for">Wait for (optional CSS selector of content the page draws late)</label>
  <input id="wait_for" name="wait_for" type="text" spellcheck="false" placeholder="e.g. .price">
  <label class="check"><input id="screenshot" name="screenshot" type="checkbox"> Show the page, with where each value was read outlined (loads it again in the browser)</label>
  <button type="submit">Scrape</button>
</form>
<section class="card" aria-labelledby="result-heading">
<h2 id="result-heading">Result</h2>
<p id="result-status" role="status" aria-live="polite" class="muted">Nothing yet.</p>
<div id="problem" class="problem" role="alert" hidden>
<p class="problem-title"></p>
<p class="problem-detail"></p>
<ul class="problem-errors"></ul>
<p class="problem-hint"></p>
<p class="problem-id muted"></p>
</div>
<div class="scroll"><table id="evidence" hidden>
<caption class="muted">Each value, its status (how far to trust it) and where it was read</caption>
<thead><tr><th scope="col">Value</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Page text</th><th scope="col">Confidence</th></tr></thead>
<tbody></tbody>
</table></div>
${statusLegend()}
<figure id="page-shot" hidden><img alt="The page, with the elements values were read from outlined"><figcaption class="muted">The page as the browser loaded it; outlined: the elements values were read from.</figcaption></figure>
<details><summary>JSON</summary><pre id="result" tabindex="0"></pre></details>
</section>`,
    true,
    csrf,
  );
}

/** Each status with its one-line meaning: the playground's script shows a value's beside it. */
function statusLegend(): Html {
  const entries = FIELD_STATUSES.map(
    ({ status, summary }) =>
      html`<dt><span class="status status-${status}">${status}</span></dt><dd data-status="${status}">${summary}</dd>`,
  );
  return html`<details><summary>What each status means</summary><dl id="status-meanings">${entries}</dl></details>`;
}

export function errorPage({ status, title, message }: { status: number; title: string; message: string }): string {
  return layout(
    title,
    html`<h1>${title}</h1>
<p role="alert" class="error">${message}</p>
<p><a href="/dashboard">Back to the dashboard</a></p>
<p class="muted">HTTP ${status}</p>`,
  );
}
