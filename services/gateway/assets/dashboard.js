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

  const form = document.getElementById("playground");
  if (form) {
    const status = document.getElementById("result-status");
    const output = document.getElementById("result");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      let schema;
      try {
        schema = JSON.parse(form.elements.schema.value);
      } catch (error) {
        status.textContent = `The schema is not valid JSON: ${error.message}`;
        output.textContent = "";
        return;
      }
      // The playground always asks for evidence: each value is shown with where it was read.
      const body = {
        url: form.elements.url.value,
        schema,
        options: { evidence: true, screenshot: form.elements.screenshot.checked },
      };
      if (form.elements.task.value.trim()) body.task_description = form.elements.task.value.trim();
      status.textContent = "Scraping…";
      output.textContent = "";
      showEvidence(undefined);
      try {
        const response = await fetch("/scrape", {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": form.dataset.apiKey },
          body: JSON.stringify(body),
        });
        const answer = await response.json();
        status.textContent = response.ok ? `200 OK` : `${response.status}: ${answer.title ?? "error"}`;
        output.textContent = JSON.stringify(response.ok ? answer.data : answer, null, 2);
        if (response.ok) showEvidence(answer);
      } catch (error) {
        status.textContent = `The request failed: ${error.message}`;
      }
    });
  }
});

/** One row per value: its pointer and value, its source, the page text it was read from, its confidence; and the screenshot. */
function showEvidence(answer) {
  const table = document.getElementById("evidence");
  const figure = document.getElementById("page-shot");
  const rows = table.querySelector("tbody");
  rows.replaceChildren();
  table.hidden = !answer;
  figure.hidden = !answer?.screenshot;
  if (!answer) return;
  for (const [pointer, value] of leaves(answer.data, "")) {
    const evidence = answer.evidence[pointer];
    const row = rows.insertRow();
    const what = row.insertCell();
    what.append(cell("code", pointer), document.createElement("br"), cell("strong", JSON.stringify(value)));
    row
      .insertCell()
      .append(cell("span", evidence ? evidence.source : "—", evidence ? `source source-${evidence.source}` : "source"));
    const text = row.insertCell();
    text.append(evidence?.text ?? (evidence ? "(not read from the page)" : "—"));
    if (evidence?.selector) text.append(document.createElement("br"), cell("code", evidence.selector, "selector"));
    const sure = row.insertCell();
    sure.textContent = evidence
      ? `${Math.round(evidence.confidence * 100)}%${evidence.grounded ? "" : " · not on the page"}`
      : "—";
    if (evidence && (evidence.confidence < 0.6 || !evidence.grounded)) sure.className = "doubt";
  }
  if (answer.screenshot) figure.querySelector("img").src = answer.screenshot;
}

/** The non-null values of the data by JSON pointer, in order. */
function leaves(value, pointer) {
  if (value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, `${pointer}/${index}`));
  if (typeof value === "object")
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
