/** The Helm chart in deploy/helm/winnow, read and rendered by our Go-template subset. */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { parseTemplates, renderFile } from "./go-template.js";

export const CHART_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy/helm/winnow");

export type Values = Record<string, any>;

export const defaultValues = (): Values => parse(readFileSync(path.join(CHART_DIR, "values.yaml"), "utf8")) as Values;
const chart = parse(readFileSync(path.join(CHART_DIR, "Chart.yaml"), "utf8")) as Record<string, string>;

const templateDir = path.join(CHART_DIR, "templates");
const templates = parseTemplates(
  new Map(readdirSync(templateDir).map((file) => [file, readFileSync(path.join(templateDir, file), "utf8")])),
);

/** A Kubernetes object as rendered. */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

function context(values: Values) {
  return {
    Values: values,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Release: { Name: "prod", Namespace: "winnow", Service: "Helm" },
  };
}

/** `helm template`: every manifest (not _helpers, not NOTES.txt), parsed, empty documents dropped. */
export function renderChart(values: Values = defaultValues()): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const file of templates.files.keys()) {
    if (file.startsWith("_") || file === "NOTES.txt") continue;
    for (const document of parseAllDocuments(renderFile(templates, file, context(values)))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
      const object = document.toJS() as K8sObject | null;
      if (object) objects.push(object);
    }
  }
  return objects;
}

export function renderNotes(values: Values = defaultValues()): string {
  return renderFile(templates, "NOTES.txt", context(values));
}
