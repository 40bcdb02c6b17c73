/**
 * The Helm chart in deploy/helm/winnow, rendered by the real helm (helm.ts) as release "prod" in namespace "winnow".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { helmBinary, runHelm } from "./helm.js";

export const CHART_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy/helm/winnow");

export type Values = Record<string, any>;

export const defaultValues = (): Values => parse(readFileSync(path.join(CHART_DIR, "values.yaml"), "utf8")) as Values;

/** A Kubernetes object as rendered. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: any;
};

export const helm = await helmBinary();
const RELEASE = ["prod", CHART_DIR, "--namespace", "winnow"];

/**
 * Runs helm with these values given as a values file (helm merges it over values.yaml, so a key
 * is removed by setting it to null).
 */
export function withValues<T>(values: Values, run: (args: string[]) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), "winnow-chart-"));
  try {
    const file = path.join(dir, "values.json");
    writeFileSync(file, JSON.stringify(values));
    return run(["--values", file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `helm template`: every manifest, parsed, empty documents dropped. Throws helm's message when it refuses. */
export function renderChart(values: Values = defaultValues()): K8sObject[] {
  const manifests = withValues(values, (args) => runHelm(helm, ["template", ...RELEASE, ...args]));
  return parseAllDocuments(manifests).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(document.errors.map((e) => e.message).join("; "));
    return document.toJS() ? [document.toJS() as K8sObject] : [];
  });
}

/** NOTES.txt as `helm install` prints it (a client-side dry run: no cluster). */
export function renderNotes(values: Values = defaultValues()): string {
  const release = withValues(values, (args) =>
    runHelm(helm, ["install", ...RELEASE, ...args, "--dry-run=client", "--output", "json"]),
  );
  return (JSON.parse(release) as { info: { notes: string } }).info.notes;
}
