// Progressive enhancement for the dashboard: the pages work without it, except reveal, copy and the playground.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const key = document.getElementById("api-key");
  const reveal = document.getElementById("reveal-key");
  const copy = document.getElementById("copy-key");
  const copyStatus = document.getElementById("copy-status");
  if (key && reveal) {
    reveal.addEventListener("click", () => {
      const hidden = key.type === "password";
      key.type = hidden ? "text" : "password";
      reveal.textContent = hidden ? "Hide" : "Reveal";
    });
  }
  if (key && copy) {
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(key.value);
        copyStatus.textContent = "Copied to the clipboard.";
      } catch {
        // No clipboard permission (or plain http): select the key so Ctrl+C works.
        key.type = "text";
        key.select();
        copyStatus.textContent = "Press Ctrl+C (or Cmd+C) to copy the selected key.";
      }
    });
  }

  // A table that does not fit says so above it (its edges' shadows show it too).
  const hints = [...document.querySelectorAll(".scroll-hint")];
  const showHints = () => {
    for (const hint of hints) {
      const box = hint.nextElementSibling;
      hint.hidden = !box || box.scrollWidth <= box.clientWidth;
    }
  };
  if (hints.length > 0) {
    showHints();
    window.addEventListener("resize", showHints);
  }

  const form = document.getElementById("playground");
  if (form) {
    const status = document.getElementById("result-status");
    const output = document.getElementById("result");
    // The answer lands below the form: on a laptop's screen, out of sight unless brought into view.
    const result = document.getElementById("result-heading");
    const intoView = () => {
      if (result.getBoundingClientRect().top > window.innerHeight / 3) result.scrollIntoView({ block: "start" });
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      // Nothing of an earlier answer stays under this one.
      output.textContent = "";
      showProblem(undefined);
      showEvidence(undefined);
      let schema;
      try {
        schema = JSON.parse(form.elements.schema.value);
      } catch (error) {
        status.className = "error";
        status.textContent = `The schema is not valid JSON: ${error.message}`;
        intoView();
        return;
      }
      // The playground always asks for evidence: each value is shown with where it was read.
      const body = {
        url: form.elements.url.value,
        schema,
        options: { evidence: true, screenshot: form.elements.screenshot.checked },
      };
      if (form.elements.task.value.trim()) body.task_description = form.elements.task.value.trim();
      if (form.elements.wait_for.value.trim()) body.options.wait_for = form.elements.wait_for.value.trim();
      status.className = "muted";
      status.textContent = "Scraping…";
      try {
        const response = await fetch("/scrape", {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": form.dataset.apiKey },
          body: JSON.stringify(body),
        });
        const answer = await response.json();
        status.textContent = response.ok ? `200 OK` : `${response.status}: ${answer.title ?? "error"}`;
        status.className = response.ok ? "muted" : "error";
        output.textContent = JSON.stringify(response.ok ? answer.data : answer, null, 2);
        if (response.ok) {
          showEvidence(answer);
          if (leaves(answer.data, "").every(([, value]) => value === null))
            showProblem(nothingFound(answer, response.headers));
        } else {
          showProblem(problemShown(answer));
        }
      } catch (error) {
        status.className = "error";
        status.textContent = `The request failed: ${error.message}`;
      }
      intoView();
    });
  }
});

/** What to try next, per problem type (the detail says what went wrong). */
const HINTS = {
  "invalid-request":
    "Check the fields named below; the request is url, schema, and optionally task_description and options.",
  "invalid-schema":
    'A schema maps field names to types, e.g. { "title": "string", "price_usd": "number", "tags": ["string"] }. See /docs for the schema language.',
  "unsupported-json-schema":
    "This JSON Schema uses a keyword Winnow cannot honour: remove or rewrite the keyword named below, or write the schema in the schema language (see /docs).",
  "url-not-allowed":
    "Winnow fetches public web pages only. A local or private address must be allowed by the operator (WINNOW_EGRESS_ALLOW on the renderer).",
  "target-unreachable": "Check the address in a browser; the site may be down or refuse Winnow's connections.",
  "target-http-error": "The site answered with an error status: check the URL, or whether the page needs a log-in.",
  "target-timeout": "The page is slow: try again, or wait for a specific element with “Wait for”.",
  "rate-limited": "Too many requests for your key: wait a little and scrape again.",
  "browser-unavailable":
    "This page needs a browser and this Winnow runs without one: the detail says how to install it.",
  "model-unavailable": "The AI model is unavailable: try again shortly.",
};

/** A problem as the API sent it: title, detail, each field path with what is wrong, and a hint. */
function problemShown(problem) {
  const slug = typeof problem.type === "string" ? problem.type.split("/").pop() : "";
  return {
    title: problem.title ?? "Error",
    detail: problem.detail,
    errors: Array.isArray(problem.errors) ? problem.errors : [],
    hint: HINTS[slug],
    requestId: problem.request_id,
  };
}

/** Why an answer is all null, from its fields' statuses and warnings (the evidence envelope has them all). */
function nothingFound(answer, headers) {
  const statuses = Object.values(answer.status ?? {});
  const codes = (answer.warnings ?? []).map((warning) => warning.code);
  const reasons = [];
  if (statuses.includes("needs-model"))
    reasons.push(
      "fields the task description asks for need an AI model, and this Winnow has none (the operator sets LLM_BASE_URL)",
    );
  if (statuses.includes("truncated") || codes.includes("render-incomplete"))
    reasons.push("the page did not finish loading in time: try “Wait for” with a selector of the content you want");
  if (headers.get("x-winnow-render-path") === "static")
    reasons.push(
      "the page was read without a browser: if its content is drawn by script, “Wait for” a selector of that content",
    );
  reasons.push(
    "the page may not state these fields under these names: names that say what they hold (price_usd, published_date_iso8601) match better",
  );
  return {
    title: "Nothing matched",
    answered: true,
    detail: "Every field came back null.",
    errors: Object.entries(answer.status ?? {}).map(([path, status]) => ({
      path,
      description: `${status}: ${meaningOf(status) ?? ""}`,
    })),
    hint: `Possible reasons: ${reasons.join("; ")}.`,
  };
}

function showProblem(problem) {
  const box = document.getElementById("problem");
  box.hidden = !problem;
  if (!problem) return;
  box.className = problem.answered ? "problem answered" : "problem";
  box.querySelector(".problem-title").textContent = problem.title;
  box.querySelector(".problem-detail").textContent = problem.detail ?? "";
  const list = box.querySelector(".problem-errors");
  list.replaceChildren(
    ...problem.errors.map((error) => {
      const item = document.createElement("li");
      item.append(cell("code", error.path), ` ${error.description}`);
      return item;
    }),
  );
  box.querySelector(".problem-hint").textContent = problem.hint ?? "";
  box.querySelector(".problem-id").textContent = problem.requestId ? `Request id ${problem.requestId}` : "";
}

/**
 * One row per value, null ones too: its pointer and value, its status with what that means, its source, the page text
 * it was read from, and (a detail) the engine's confidence; and the screenshot.
 */
function showEvidence(answer) {
  const table = document.getElementById("evidence");
  const figure = document.getElementById("page-shot");
  const rows = table.querySelector("tbody");
  rows.replaceChildren();
  table.hidden = !answer || leaves(answer.data, "").length === 0;
  figure.hidden = !answer?.screenshot;
  if (!answer) return;
  const statuses = answer.status ?? {};
  const shown = leaves(answer.data, "").map(([pointer, value]) => {
    const evidence = answer.evidence[pointer];
    return { pointer, value: JSON.stringify(value), evidence, status: evidence?.status ?? statusAt(statuses, pointer) };
  });
  // A field's status as a whole that none of its values has (a list holding fewer records than the page shows): a row
  // of its own, before its values, so that it is not hidden behind theirs.
  for (const [pointer, status] of Object.entries(statuses)) {
    const under = shown.filter((row) => row.pointer === pointer || row.pointer.startsWith(`${pointer}/`));
    if (under.length > 0 && !under.some((row) => row.status === status))
      shown.splice(shown.indexOf(under[0]), 0, { pointer, value: "(the field as a whole)", status });
  }
  for (const { pointer, value, evidence, status } of shown) {
    const row = rows.insertRow();
    const what = row.insertCell();
    what.append(cell("code", pointer), document.createElement("br"), cell("strong", value));
    const said = row.insertCell();
    if (status) {
      said.append(cell("span", status, `status status-${status}`));
      const meaning = meaningOf(status);
      if (meaning) said.append(document.createElement("br"), cell("span", meaning, "meaning"));
    } else said.textContent = "—";
    row
      .insertCell()
      .append(cell("span", evidence ? evidence.source : "—", evidence ? `source source-${evidence.source}` : "source"));
    const text = row.insertCell();
    text.append(evidence?.text ?? (evidence ? "(not read from the page)" : "—"));
    if (evidence?.selector) text.append(document.createElement("br"), cell("code", evidence.selector, "selector"));
    row.insertCell().append(cell("span", evidence ? `${Math.round(evidence.confidence * 100)}%` : "—", "muted"));
  }
  if (answer.screenshot) figure.querySelector("img").src = answer.screenshot;
}

/** A value's status: its own, else its field's (the answer lists a value inside a field only where they differ). */
function statusAt(statuses, pointer) {
  for (let at = pointer; at; at = at.slice(0, at.lastIndexOf("/"))) if (statuses[at]) return statuses[at];
  return undefined;
}

/** A status's one-line meaning, as the page lists it (from the gateway's own list). */
function meaningOf(status) {
  return [...document.querySelectorAll("#status-meanings dd")].find((dd) => dd.dataset.status === status)?.textContent;
}

/** The values of the data by JSON pointer, in order: scalars, nulls, and empty lists (each has a status). */
function leaves(value, pointer) {
  if (Array.isArray(value) && value.length > 0)
    return value.flatMap((item, index) => leaves(item, `${pointer}/${index}`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) =>
      leaves(inner, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`),
    );
  return [[pointer, value]];
}

function cell(tag, text, className) {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}
