/** `npm run docs`: rewrites the generated API tables in docs/api.md from the gateway's code. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { withGeneratedTables } from "@winnow/gateway";
import { REPO_ROOT } from "./stack.js";

const file = path.join(REPO_ROOT, "docs", "api.md");
const before = await readFile(file, "utf8");
const after = withGeneratedTables(before);
if (after === before) console.log("docs/api.md is up to date");
else {
  await writeFile(file, after);
  console.log("docs/api.md tables rewritten");
}
