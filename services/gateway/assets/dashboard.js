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
      const body = { url: form.elements.url.value, schema };
      if (form.elements.task.value.trim()) body.task_description = form.elements.task.value.trim();
      status.textContent = "Scraping…";
      output.textContent = "";
      try {
        const response = await fetch("/scrape", {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": form.dataset.apiKey },
          body: JSON.stringify(body),
        });
        const answer = await response.json();
        status.textContent = response.ok ? `200 OK` : `${response.status}: ${answer.title ?? "error"}`;
        output.textContent = JSON.stringify(answer, null, 2);
      } catch (error) {
        status.textContent = `The request failed: ${error.message}`;
      }
    });
  }
});
