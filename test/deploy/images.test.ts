/**
 * The Dockerfile without Docker: every path it copies exists and reaches the build context,
 * every stage it copies from produces what is copied, and each service's target starts the
 * service's own entry point as a non-root user with an environment that service accepts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PROTO_ROOT } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { serviceEntry } from "../../scripts/src/stack.js";
import { TEST_TOKEN_ENV } from "../support/caller-tokens.js";
import { COMPONENTS, loadServiceConfig, unknownVariables } from "./service-config.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A file's path from the repository's root, as an image's layout writes it. */
const platform = JSON.parse(readFileSync(path.join(ROOT, "packages/platform/package.json"), "utf8"));
/** The platform's build, as its package's exports name it. */
const platformBuild = path.posix.join("packages/platform", path.posix.dirname(platform.exports["./telemetry"].default));

function posixRelative(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join("/");
}

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Stages with their instructions; continuation lines joined, comments dropped. */
function parseDockerfile(source: string): Stage[] {
  const lines = source
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    if (op === "FROM") {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!)!;
      stages.push({ name: name ?? `#${stages.length}`, from: from!, instructions: [] });
    } else if (stages.length > 0) stages.at(-1)!.instructions.push({ op: op!, args: args! });
  }
  return stages;
}

const stages = parseDockerfile(readFileSync(path.join(ROOT, "Dockerfile"), "utf8"));
const stage = (name: string) => stages.find((s) => s.name === name)!;
/** A stage and the stages it is built FROM, base first. */
const chain = (name: string): Stage[] => {
  const own = stage(name);
  return stages.some((s) => s.name === own.from) ? [...chain(own.from), own] : [own];
};
const all = (name: string, op: string) => chain(name).flatMap((s) => s.instructions.filter((i) => i.op === op));
const workdir = (name: string) => all(name, "WORKDIR").at(-1)!.args;
const envOf = (name: string) =>
  Object.fromEntries(
    all(name, "ENV").flatMap((i) => [...i.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
  );

interface Copy {
  from?: string;
  source: string;
  destination: string;
  stage: string;
}
const copies = (name: string): Copy[] =>
  chain(name).flatMap((s) =>
    s.instructions
      .filter((i) => i.op === "COPY")
      .map((i) => {
        const words = i.args.split(/\s+/);
        const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
        const [source, destination] = words.filter((w) => !w.startsWith("--"));
        // A destination ending in / is a directory the source goes into, under its own name.
        const target = destination!.endsWith("/") ? destination! + path.posix.basename(source!) : destination!;
        return { from, source: source!, destination: path.posix.resolve(workdirAt(s), target), stage: s.name };
      }),
  );
const workdirAt = (s: Stage) =>
  chain(s.name)
    .flatMap((c) => c.instructions)
    .filter((i) => i.op === "WORKDIR")
    .at(-1)?.args ?? "/";

/**
 * .dockerignore patterns as Docker matches them (Go filepath.Match plus **): a pattern matches a path or any of its
 * parents, and the last pattern that matches decides, so a `!` exception lets a file back in.
 */
const ignorePatterns = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"))
  .map((line) => {
    const exception = line.startsWith("!");
    const escaped = line.replace(/^!/, "").replace(/[.+^$()|[\]{}]/g, "\\$&");
    const source = escaped
      .split("**/")
      .map((part) => part.replace(/\*/g, "[^/]*"))
      .join("(.*/)?");
    return { exception, pattern: new RegExp(`^${source}$`) };
  });
const ignored = (file: string) => {
  const parts = file.split("/");
  let excluded = false;
  for (const { exception, pattern } of ignorePatterns) {
    if (parts.some((_, i) => pattern.test(parts.slice(0, i + 1).join("/")))) excluded = !exception;
  }
  return excluded;
};

/** Every workspace's package.json, from the root package.json's workspaces ("dir/*" or "dir/name"). */
const workspaces = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).workspaces as string[]).flatMap(
  (pattern) =>
    pattern.endsWith("/*")
      ? readdirSync(path.join(ROOT, pattern.slice(0, -2))).map((name) => `${pattern.slice(0, -2)}/${name}/package.json`)
      : [`${pattern}/package.json`],
);

describe("Dockerfile", () => {
  it("has a target per service", () => {
    for (const component of COMPONENTS) expect(stages.map((s) => s.name)).toContain(component);
  });

  it("runs on Node.js 22 LTS, which package.json's engines allows beside 20.19", () => {
    const source = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    expect(/^ARG NODE_IMAGE=(\S+)$/m.exec(source)?.[1]).toBe("node:22-bookworm-slim");
    // Every stage starts from it or from another stage.
    for (const s of stages.filter((s) => !stages.some((other) => other.name === s.from))) {
      expect(s.from, s.name).toMatch(/^\$\{NODE_IMAGE\}$/);
    }
    expect(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).engines).toEqual({ node: ">=20.19" });
  });

  it("copies from the context only paths that exist and that .dockerignore lets through", () => {
    for (const s of stages) {
      for (const copy of copies(s.name).filter((c) => !c.from && c.stage === s.name)) {
        expect(existsSync(path.join(ROOT, copy.source)), copy.source).toBe(true);
        expect(ignored(copy.source), `${copy.source} is excluded by .dockerignore`).toBe(false);
      }
    }
    // Host builds and installs never leak into an image.
    for (const file of [
      "node_modules",
      "services/gateway/node_modules",
      path.posix.dirname(posixRelative(serviceEntry("gateway"))),
      "packages/platform/tsconfig.tsbuildinfo",
    ]) {
      expect(ignored(file), file).toBe(true);
    }
  });

  it("installs every workspace's dependencies, with devDependencies only in the build stage", () => {
    for (const name of ["build", "prod-deps"]) {
      const copied = copies(name).map((c) => c.source);
      for (const workspace of workspaces) expect(copied, `${name} lacks ${workspace}`).toContain(workspace);
    }
    expect(
      all("prod-deps", "RUN")
        .map((i) => i.args)
        .join(" "),
    ).toMatch(/npm ci --omit=dev/);
    // Exactly the lockfile, in both stages.
    expect(all("build", "RUN").map((i) => i.args)).toContainEqual(expect.stringMatching(/^npm ci /));
    const fromProdDeps = copies("runtime").find((c) => c.from === "prod-deps")!;
    expect(fromProdDeps.source).toBe(`${workdir("prod-deps")}/node_modules`);
    expect(
      copies("runtime")
        .filter((c) => c.from === "build")
        .map((c) => c.source),
    ).toEqual([`${workdir("build")}/${platformBuild}`]);
  });

  it("runs no workspace's prepare script where the install has only the manifests", () => {
    // A workspace's `prepare` (the Node.js client builds itself) runs at `npm ci`, before any source is copied.
    const preparing = workspaces.filter(
      (manifest) => JSON.parse(readFileSync(path.join(ROOT, manifest), "utf8")).scripts?.prepare !== undefined,
    );
    expect(preparing).not.toEqual([]);
    for (const name of ["build", "prod-deps"]) {
      const installs = chain(name)
        .flatMap((s) => s.instructions)
        .filter((i) => i.op === "RUN" && i.args.startsWith("npm ci "));
      for (const install of installs) expect(install.args, `${name}: ${install.args}`).toContain("--ignore-scripts");
    }
  });

  it("copies from the build stage only what tsc -b, or the Node.js client's own build, builds there", () => {
    const runs = all("build", "RUN").map((i) => i.args);
    const built = runs.find((a) => a.includes("tsc -b"))!;
    const projects = new Set<string>();
    // The client builds itself (ESM and CommonJS, tsconfig.esm.json and tsconfig.cjs.json) into its dist.
    if (runs.some((a) => /^npm run -s build -w @winnow\/client$/.test(a))) projects.add("clients/node");
    const addProject = (dir: string) => {
      projects.add(dir);
      const tsconfig = JSON.parse(readFileSync(path.join(ROOT, dir, "tsconfig.json"), "utf8"));
      expect(tsconfig.compilerOptions.outDir, dir).toBe("dist");
      for (const ref of tsconfig.references ?? []) addProject(path.posix.normalize(`${dir}/${ref.path}`));
    };
    for (const dir of built.split(/\s+/).slice(built.split(/\s+/).indexOf("-b") + 1)) addProject(dir);
    for (const s of stages) {
      for (const copy of copies(s.name).filter((c) => c.from === "build")) {
        const dir = path.posix.relative(workdir("build"), path.posix.dirname(copy.source));
        expect(projects, copy.source).toContain(dir);
        expect(path.posix.basename(copy.source)).toBe("dist");
      }
    }
  });

  it("starts each service from the repository layout, as a non-root user", () => {
    for (const component of COMPONENTS) {
      const cmd = JSON.parse(all(component, "CMD").at(-1)!.args) as string[];
      // What the service's package names as its entry, relative to the repository (the image keeps its layout).
      const entry = posixRelative(serviceEntry(component));
      expect(cmd).toEqual(["node", "--import", "@winnow/platform/telemetry", entry]);
      // Its source, and its package (the jobs worker is the gateway package's second entry point).
      expect(existsSync(path.join(ROOT, entry.replace("/dist/", "/src/").replace(/\.js$/, ".ts")))).toBe(true);
      const packageDir = path.posix.dirname(path.posix.dirname(entry));
      const app = workdir(component);
      const destinations = copies(component).map((c) => c.destination);
      // The service's build: the folder of the entry its package names.
      expect(destinations).toContain(`${app}/${path.posix.dirname(entry)}`);
      expect(destinations).toContain(`${app}/${packageDir}/package.json`);
      // The preload resolves through node_modules/@winnow/platform (a workspace link) to its dist.
      expect(platform.exports["./telemetry"].default).toBe("./dist/telemetry.js");
      expect(destinations).toEqual(
        expect.arrayContaining([
          `${app}/node_modules`,
          `${app}/${platformBuild}`,
          `${app}/packages/platform/package.json`,
        ]),
      );
      // gRPC reflection reads the .proto files at PROTO_ROOT, found relative to the platform's dist.
      const protoInImage = path.posix.resolve(
        `${app}/${platformBuild}`,
        path.relative(path.join(ROOT, platformBuild), PROTO_ROOT),
      );
      expect(destinations).toContain(protoInImage);
      const user = all(component, "USER").at(-1)!.args;
      expect(user).not.toMatch(/^(root|0)(:|$)/);
    }
  });

  it("sets only variables each service knows, listening on every interface on its exposed port", () => {
    const runtimeOnly = new Set(["NODE_ENV", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]);
    for (const component of COMPONENTS) {
      const env = envOf(component);
      expect(
        unknownVariables(
          component,
          Object.keys(env).filter((name) => !runtimeOnly.has(name)),
        ),
        component,
      ).toEqual([]);
      // Caller tokens come from the deployment (compose, the chart), never baked into an image.
      expect(
        Object.keys(env).filter((name) => name.endsWith("_TOKEN")),
        component,
      ).toEqual([]);
      const config = loadServiceConfig(component, { ...TEST_TOKEN_ENV, ...env });
      expect(config[component === "gateway" ? "HOST" : "GRPC_HOST"]).toBe("0.0.0.0");
      expect(config.METRICS_HOST, "metrics, too, reached from outside the container").toBe("0.0.0.0");
      const port = component === "gateway" ? config.PORT : config.GRPC_PORT;
      expect(all(component, "EXPOSE").map((i) => i.args)).toEqual([String(port)]);
    }
  });

  it("gives the renderer Debian's Chromium and fonts, with its scratch under /tmp", () => {
    const install = all("renderer", "RUN")
      .map((i) => i.args)
      .join(" ");
    for (const pkg of ["chromium", "fonts-liberation", "fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji"]) {
      expect(install.split(/\s+/)).toContain(pkg);
    }
    const env = envOf("renderer");
    expect(env.CHROMIUM_PATH).toBe("/usr/bin/chromium");
    for (const dir of ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]) expect(env[dir]).toMatch(/^\/tmp(\/|$)/);
  });
});
