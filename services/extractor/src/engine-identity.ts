import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { DescribeEnginesResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type ExtractorConfig, llmSettings, promptSettings } from "./config.js";

/**
 * What answers this extractor's extractions, for callers that keep answers
 * (the gateway's extraction cache): the model, and a version that changes
 * whenever the same page and schema may be answered differently. The version
 * hashes the running code (every .js file of this build, so a rebuild is a new
 * version even when package.json's version is not bumped) and the settings
 * that shape answers.
 */
export async function engineIdentity(config: ExtractorConfig): Promise<DescribeEnginesResponse> {
  const model = llmSettings(config)?.model ?? "";
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      model,
      prompts: promptSettings(config),
      hybrid: config.EXTRACT_HYBRID,
      templates: config.EXTRACT_TEMPLATES,
      sharedTemplates: config.EXTRACT_TEMPLATES_SHARED,
    }),
  );
  const codeDir = path.dirname(fileURLToPath(import.meta.url));
  const files = (await readdir(codeDir, { recursive: true })).filter((file) => file.endsWith(".js")).sort();
  for (const file of files) hash.update(file).update(await readFile(path.join(codeDir, file)));
  return { model, engineVersion: hash.digest("hex").slice(0, 16) };
}
