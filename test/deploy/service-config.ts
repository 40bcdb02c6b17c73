/**
 * What each service validates at start-up (its zod config shape), for checking the
 * environment that compose, the chart and the images give it.
 */

import { authConfigShape } from "@winnow/auth";
import { configShape as extractorConfigShape } from "@winnow/extractor";
import { configShape as gatewayConfigShape, jobsConfigShape } from "@winnow/gateway";
import { loadConfig } from "@winnow/platform";
import { rendererConfigShape } from "@winnow/renderer";
import { z } from "zod";

export const COMPONENTS = ["gateway", "jobs", "auth", "renderer", "extractor"] as const;
export type Component = (typeof COMPONENTS)[number];

const SHAPES: Record<Component, z.ZodRawShape> = {
  gateway: gatewayConfigShape,
  jobs: jobsConfigShape,
  auth: authConfigShape,
  renderer: rendererConfigShape,
  extractor: extractorConfigShape,
};

/** Names a service reads outside its shape: the OpenTelemetry SDK's (the telemetry preload). */
const isOtel = (name: string) => name.startsWith("OTEL_");

/** The variables the service validates at start-up. */
export function knownVariables(component: Component): string[] {
  return Object.keys(SHAPES[component]);
}

/** Variables set for a service that it does not know (a typo, or a variable of another service). */
export function unknownVariables(component: Component, names: Iterable<string>): string[] {
  return [...names].filter((name) => !(name in SHAPES[component]) && !isOtel(name));
}

/** Variables the service cannot start without (no default, not optional). */
export function requiredVariables(component: Component): string[] {
  return Object.entries(SHAPES[component])
    .filter(([, schema]) => !z.safeParse(schema, undefined).success)
    .map(([name]) => name);
}

/** The service's configuration from this environment, exactly as at start-up (throws ConfigError). */
export function loadServiceConfig(component: Component, env: Record<string, string>): Record<string, unknown> {
  return loadConfig(SHAPES[component], env);
}
