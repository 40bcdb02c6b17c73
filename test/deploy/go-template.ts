/**
 * Just enough of Go's text/template and Helm's Sprig functions to render our chart
 * (no Helm binary here). It supports exactly the constructs deploy/helm/winnow uses, and
 * throws on anything else, so a template using a construct it lacks fails the test loudly
 * instead of rendering wrongly. Semantics follow Go's: trim markers, truthiness (false, 0,
 * "", nil, empty list/map are false), maps ranged in key order, variables scoped to their
 * block, `and`/`or` returning an operand, piped values passed as the last argument.
 */
import { stringify } from "yaml";

type Value = unknown;
type Scope = Map<string, Value>[];

interface TextNode { kind: "text"; text: string }
interface ActionNode { kind: "action"; pipeline: Pipeline; assign?: string }
interface IfNode { kind: "if"; branches: { cond: Pipeline; body: Node[] }[]; otherwise: Node[] }
interface RangeNode { kind: "range"; vars: string[]; over: Pipeline; body: Node[] }
interface WithNode { kind: "with"; value: Pipeline; body: Node[]; otherwise: Node[] }
type Node = TextNode | ActionNode | IfNode | RangeNode | WithNode;

type Operand =
  | { kind: "literal"; value: Value }
  | { kind: "field"; base: "." | "$" | string; path: string[] }
  | { kind: "call"; name: string; args: Operand[] }
  | { kind: "paren"; pipeline: Pipeline };
type Pipeline = Operand[];

export class TemplateError extends Error {
  override name = "TemplateError";
}

// ---------- lexing: text and {{ actions }}, with trim markers applied ----------

function lex(source: string, file: string): { kind: "text" | "action"; text: string }[] {
  const parts: { kind: "text" | "action"; text: string }[] = [];
  let rest = source;
  while (rest.length > 0) {
    const open = rest.indexOf("{{");
    if (open < 0) {
      parts.push({ kind: "text", text: rest });
      break;
    }
    let text = rest.slice(0, open);
    const close = rest.indexOf("}}", open);
    if (close < 0) throw new TemplateError(`${file}: unclosed action`);
    let inner = rest.slice(open + 2, close);
    if (inner.startsWith("- ")) {
      text = text.replace(/\s+$/, "");
      inner = inner.slice(2);
    }
    let after = rest.slice(close + 2);
    if (inner.endsWith(" -")) {
      inner = inner.slice(0, -2);
      after = after.replace(/^\s+/, "");
    }
    parts.push({ kind: "text", text });
    inner = inner.trim();
    if (!(inner.startsWith("/*") && inner.endsWith("*/"))) parts.push({ kind: "action", text: inner });
    rest = after;
  }
  return parts.filter((p) => p.kind === "action" || p.text.length > 0);
}

// ---------- parsing actions ----------

// Strings, :=, parentheses, pipes, commas, $variables with fields, identifiers, .fields, numbers.
const TOKEN =
  /\s*("(?:[^"\\]|\\.)*"|:=|\(|\)|\||,|\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|[A-Za-z_][A-Za-z0-9_]*|\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?|-?\d+)/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new TemplateError(`cannot read "${text.slice(start)}" in {{ ${text} }}`);
    tokens.push(match[1]!);
  }
  return tokens;
}

function parsePipeline(tokens: string[], source: string): Pipeline {
  let position = 0;
  const operand = (): Operand => {
    const token = tokens[position++];
    if (token === undefined) throw new TemplateError(`unexpected end of {{ ${source} }}`);
    if (token === "(") {
      const start = position;
      let depth = 1;
      while (depth > 0) {
        const t = tokens[position++];
        if (t === undefined) throw new TemplateError(`unbalanced ( in {{ ${source} }}`);
        if (t === "(") depth++;
        if (t === ")") depth--;
      }
      return { kind: "paren", pipeline: parsePipeline(tokens.slice(start, position - 1), source) };
    }
    if (token.startsWith('"')) return { kind: "literal", value: JSON.parse(token) };
    if (/^-?\d+$/.test(token)) return { kind: "literal", value: Number(token) };
    if (token === "true" || token === "false") return { kind: "literal", value: token === "true" };
    if (token === ".") return { kind: "field", base: ".", path: [] };
    if (token.startsWith(".")) return { kind: "field", base: ".", path: token.slice(1).split(".") };
    if (token.startsWith("$")) {
      const [variable, ...path] = token.split(".");
      return { kind: "field", base: variable!, path };
    }
    if (!(token in FUNCTIONS)) throw new TemplateError(`unsupported function "${token}" in {{ ${source} }}`);
    const args: Operand[] = [];
    while (position < tokens.length && tokens[position] !== "|" && tokens[position] !== ")") args.push(operand());
    return { kind: "call", name: token, args };
  };
  const commands: Operand[] = [];
  while (position < tokens.length) {
    commands.push(operand());
    if (position < tokens.length) {
      if (tokens[position] !== "|") throw new TemplateError(`expected | in {{ ${source} }}`);
      position++;
    }
  }
  if (commands.length === 0) throw new TemplateError(`empty action {{ ${source} }}`);
  return commands;
}

/** Splits `$a, $b := pipeline` into the variables and the pipeline's tokens. */
function declaration(tokens: string[]): { vars: string[]; rest: string[] } {
  const at = tokens.indexOf(":=");
  if (at < 0) return { vars: [], rest: tokens };
  return { vars: tokens.slice(0, at).filter((t) => t !== ","), rest: tokens.slice(at + 1) };
}

export interface Templates {
  /** Every file's top-level node list, by file name. */
  files: Map<string, Node[]>;
  defines: Map<string, Node[]>;
}

/** Parses template files (name → source); defines from any file are shared, as in Helm. */
export function parseTemplates(sources: Map<string, string>): Templates {
  const templates: Templates = { files: new Map(), defines: new Map() };
  for (const [file, source] of sources) {
    const parts = lex(source, file);
    let position = 0;
    // Parses nodes up to an {{ end }} / {{ else ... }} (returned as the terminator) or the file's end.
    const block = (): { nodes: Node[]; terminator?: string[] } => {
      const nodes: Node[] = [];
      while (position < parts.length) {
        const part = parts[position++]!;
        if (part.kind === "text") {
          nodes.push({ kind: "text", text: part.text });
          continue;
        }
        const tokens = tokenize(part.text);
        const [keyword, ...rest] = tokens;
        const where = `${file}: {{ ${part.text} }}`;
        switch (keyword) {
          case "end":
          case "else":
            return { nodes, terminator: tokens };
          case "define": {
            const name = JSON.parse(rest[0] ?? "null") as string;
            const body = block();
            if (body.terminator?.[0] !== "end") throw new TemplateError(`${where}: define without end`);
            templates.defines.set(name, body.nodes);
            break;
          }
          case "if": {
            const node: IfNode = { kind: "if", branches: [], otherwise: [] };
            let cond = rest;
            for (;;) {
              const body = block();
              node.branches.push({ cond: parsePipeline(cond, part.text), body: body.nodes });
              const terminator = body.terminator;
              if (!terminator) throw new TemplateError(`${where}: if without end`);
              if (terminator[0] === "end") break;
              if (terminator[1] === "if") {
                cond = terminator.slice(2);
                continue;
              }
              const otherwise = block();
              if (otherwise.terminator?.[0] !== "end") throw new TemplateError(`${where}: else without end`);
              node.otherwise = otherwise.nodes;
              break;
            }
            nodes.push(node);
            break;
          }
          case "range":
          case "with": {
            const { vars, rest: expression } = declaration(rest);
            const body = block();
            let otherwise: Node[] = [];
            if (body.terminator?.[0] === "else") {
              const tail = block();
              if (tail.terminator?.[0] !== "end") throw new TemplateError(`${where}: else without end`);
              otherwise = tail.nodes;
            } else if (body.terminator?.[0] !== "end") throw new TemplateError(`${where}: ${keyword} without end`);
            const pipeline = parsePipeline(expression, part.text);
            if (keyword === "range") {
              if (otherwise.length > 0) throw new TemplateError(`${where}: range else is not supported`);
              nodes.push({ kind: "range", vars, over: pipeline, body: body.nodes });
            } else {
              if (vars.length > 0) throw new TemplateError(`${where}: with $x := is not supported`);
              nodes.push({ kind: "with", value: pipeline, body: body.nodes, otherwise });
            }
            break;
          }
          default: {
            const { vars, rest: expression } = declaration(tokens);
            nodes.push({ kind: "action", pipeline: parsePipeline(expression, part.text), assign: vars[0] });
          }
        }
      }
      return { nodes };
    };
    const top = block();
    if (top.terminator) throw new TemplateError(`${file}: {{ ${top.terminator.join(" ")} }} without a block`);
    templates.files.set(file, top.nodes);
  }
  return templates;
}

// ---------- evaluation ----------

function truthy(value: Value): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

function text(value: Value): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") throw new TemplateError(`cannot print an object: ${JSON.stringify(value)}`);
  return String(value);
}

function indent(spaces: number, value: string): string {
  const pad = " ".repeat(spaces);
  return value
    .split("\n")
    .map((line) => pad + line)
    .join("\n");
}

const FUNCTIONS: Record<string, (...args: Value[]) => Value> = {
  // include and fail are handled by the evaluator (they need the templates / throw).
  include: () => undefined,
  fail: (message) => {
    throw new TemplateError(`fail: ${text(message)}`);
  },
  toYaml: (value) => stringify(value).replace(/\n$/, ""),
  nindent: (spaces, value) => `\n${indent(Number(spaces), text(value))}`,
  quote: (value) => JSON.stringify(text(value)),
  default: (fallback, value) => (truthy(value) ? value : fallback),
  printf: (format, ...args) => {
    let i = 0;
    return text(format).replace(/%[svd]/g, () => text(args[i++]));
  },
  trunc: (length, value) => text(value).slice(0, Number(length)),
  trimSuffix: (suffix, value) => (text(value).endsWith(text(suffix)) ? text(value).slice(0, -text(suffix).length) : text(value)),
  contains: (needle, haystack) => text(haystack).includes(text(needle)),
  dict: (...pairs) => {
    const result: Record<string, Value> = {};
    for (let i = 0; i < pairs.length; i += 2) result[text(pairs[i])] = pairs[i + 1];
    return result;
  },
  list: (...items) => items,
  index: (collection, ...keys) => keys.reduce((value: Value, key) => (value as Record<string, Value> | undefined)?.[text(key)], collection),
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  gt: (a, b) => Number(a) > Number(b),
  int: (value) => Math.trunc(Number(value ?? 0)),
  mul: (...values) => values.reduce((product: number, v) => product * Number(v), 1),
  or: (...values) => values.find(truthy) ?? values[values.length - 1],
  and: (...values) => values.find((v) => !truthy(v)) ?? values[values.length - 1],
  not: (value) => !truthy(value),
};

function lookup(value: Value, path: string[]): Value {
  let current = value;
  for (const key of path) {
    if (current === null || current === undefined) return undefined;
    if (typeof current !== "object") throw new TemplateError(`cannot read .${key} of ${JSON.stringify(current)}`);
    current = (current as Record<string, Value>)[key];
  }
  return current;
}

class Renderer {
  constructor(private readonly templates: Templates) {}

  render(nodes: Node[], dot: Value, scope: Scope): string {
    scope = [...scope, new Map()];
    let out = "";
    for (const node of nodes) {
      switch (node.kind) {
        case "text":
          out += node.text;
          break;
        case "action": {
          const value = this.pipeline(node.pipeline, dot, scope);
          if (node.assign) scope[scope.length - 1]!.set(node.assign, value);
          else out += text(value);
          break;
        }
        case "if": {
          const branch = node.branches.find((b) => truthy(this.pipeline(b.cond, dot, scope)));
          out += this.render(branch ? branch.body : node.otherwise, dot, scope);
          break;
        }
        case "with": {
          const value = this.pipeline(node.value, dot, scope);
          out += truthy(value) ? this.render(node.body, value, scope) : this.render(node.otherwise, dot, scope);
          break;
        }
        case "range": {
          const over = this.pipeline(node.over, dot, scope);
          const entries: [Value, Value][] = Array.isArray(over)
            ? over.map((v, i) => [i, v])
            : over && typeof over === "object"
              ? Object.keys(over)
                  .sort()
                  .map((k) => [k, (over as Record<string, Value>)[k]])
              : [];
          for (const [key, value] of entries) {
            const vars = new Map<string, Value>();
            if (node.vars.length === 1) vars.set(node.vars[0]!, value);
            if (node.vars.length === 2) vars.set(node.vars[0]!, key).set(node.vars[1]!, value);
            out += this.render(node.body, value, [...scope, vars]);
          }
          break;
        }
      }
    }
    return out;
  }

  include(name: string, dot: Value, root: Value): string {
    const body = this.templates.defines.get(name);
    if (!body) throw new TemplateError(`include of undefined template "${name}"`);
    return this.render(body, dot, [new Map([["$", root === undefined ? dot : root]])]);
  }

  pipeline(commands: Pipeline, dot: Value, scope: Scope): Value {
    let piped: Value[] = [];
    let result: Value;
    for (const command of commands) {
      result = this.operand(command, dot, scope, piped);
      piped = [result];
    }
    return result;
  }

  operand(operand: Operand, dot: Value, scope: Scope, piped: Value[]): Value {
    switch (operand.kind) {
      case "literal":
        return operand.value;
      case "paren":
        return this.pipeline(operand.pipeline, dot, scope);
      case "field": {
        if (operand.base === ".") return lookup(dot, operand.path);
        const holder = [...scope].reverse().find((vars) => vars.has(operand.base));
        if (!holder) throw new TemplateError(`undefined variable ${operand.base}`);
        return lookup(holder.get(operand.base), operand.path);
      }
      case "call": {
        const args = [...operand.args.map((a) => this.operand(a, dot, scope, [])), ...piped];
        if (operand.name === "include") {
          // An include's $ is its argument, as in Go (a named template starts a fresh scope).
          return this.include(text(args[0]), args[1], args[1]);
        }
        return FUNCTIONS[operand.name]!(...args);
      }
    }
  }
}

/** Renders one parsed file with Helm's top-level object (.Values, .Chart, .Release). */
export function renderFile(templates: Templates, file: string, context: Record<string, Value>): string {
  const nodes = templates.files.get(file);
  if (!nodes) throw new TemplateError(`no template ${file}`);
  return new Renderer(templates).render(nodes, context, [new Map([["$", context]])]);
}
