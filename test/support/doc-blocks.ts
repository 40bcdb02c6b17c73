/**
 * The code blocks of the project's documents, as a reader copies them, each with what kind of example it is; the
 * doc-examples test runs or checks every one against a stack.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { lexer, type Token, type Tokens, walkTokens } from "marked";

/** The documents a newcomer reads: the README, the docs it links, and the clients' READMEs. */
export const DOCUMENTS = [
  "README.md",
  "docs/api.md",
  "docs/architecture.md",
  "docs/operations.md",
  "docs/testing.md",
  "clients/node/README.md",
  "clients/python/README.md",
];

type BlockKind =
  /** A shell block that calls the API with curl: run, its output compared with the comment after it. */
  | "curl"
  /** A shell block of development commands (npm start, npm test, npm run …): the start and CI runs cover them. */
  | "workflow"
  /** A schema in the schema language: sent with the sample page, the answer must have its shape. */
  | "schema"
  /** A POST /scrape body: sent, it must be answered 200. */
  | "request"
  /** A problem document: its type and status must be the catalogue's. */
  | "problem"
  /** An evidence envelope: its keys must be a real envelope's. */
  | "envelope"
  /** Response headers: each must be one a real answer carries. */
  | "headers"
  /** An MCP host's `mcpServers` configuration: each server, started or reached as written, must list Winnow's tools. */
  | "mcp-config"
  /** A Node.js (TypeScript) program, run with the other Node blocks of its document before it. */
  | "node"
  /** A Python program, run with the other Python blocks of its document before it. */
  | "python"
  /** Not code: a diagram or a message as printed. */
  | "text";

export interface DocBlock {
  /** `file:line`, for the test's name. */
  where: string;
  file: string;
  lang: string;
  text: string;
  kind: BlockKind;
}

/** Every fenced code block of the documents, in order, with its kind. */
export async function docBlocks(root: string): Promise<DocBlock[]> {
  const blocks: DocBlock[] = [];
  for (const file of DOCUMENTS) {
    const source = await readFile(path.join(root, file), "utf8");
    const codes: Tokens.Code[] = [];
    walkTokens(lexer(source), (token: Token) => {
      if (token.type === "code") codes.push(token as Tokens.Code);
    });
    let from = 0;
    for (const code of codes) {
      const at = source.indexOf(code.raw, from);
      from = at + code.raw.length;
      const line = source.slice(0, at).split("\n").length;
      const lang = code.lang ?? "";
      blocks.push({ where: `${file}:${line}`, file, lang, text: code.text, kind: kindOf(lang, code.text) });
    }
  }
  return blocks;
}

/** The text of the first code block after a heading of a document (e.g. a guide's commands, to run them as written). */
export async function firstBlockUnder(root: string, file: string, heading: string): Promise<string> {
  let under = false;
  let found: string | undefined;
  walkTokens(lexer(await readFile(path.join(root, file), "utf8")), (token: Token) => {
    if (token.type === "heading") under = (token as Tokens.Heading).text === heading;
    else if (under && token.type === "code" && found === undefined) found = (token as Tokens.Code).text;
  });
  if (found === undefined) throw new Error(`${file}: no code block under the heading "${heading}"`);
  return found;
}

function kindOf(lang: string, text: string): BlockKind {
  switch (lang) {
    case "sh":
      return /^\s*curl /m.test(text) ? "curl" : "workflow";
    case "ts":
      return "node";
    case "python":
      return "python";
    case "http":
      return "headers";
    case "json": {
      const value = JSON.parse(text) as Record<string, unknown>;
      if (typeof value.type === "string" && value.type.startsWith("https://winnow.dev/problems/")) return "problem";
      if ("data" in value) return "envelope";
      if ("mcpServers" in value) return "mcp-config";
      return "url" in value ? "request" : "schema";
    }
    case "":
      return "text";
    default:
      throw new Error(`a code block in a language no test runs: ${lang}`);
  }
}
