/** What an extraction is asked, and the typed facts its stages hand on. */
import type { ExtractResponse, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { ModelFacts } from "../engines/model/extract.js";
import type { CallBounds, ModelReader } from "../engines/model/llm.js";
import type { Page } from "../page/page.js";
import type { FieldRules } from "../schema/field-rules.js";
import type { FieldHints } from "../schema/json-schema.js";
import type { CompiledSchema } from "../schema/schema-cache.js";
import type { TemplateScope } from "./template-scope.js";

export interface ExtractionJob {
  /** The schema as the caller sent it (narrowed schemas are cached by it) and compiled. */
  schemaJson: string;
  /** What the caller says a field holds, by its pointer in the schema; compiled into `schema` for the model. */
  fieldHints: FieldHints;
  /** A JSON Schema's enum, const and format, by pointer in the schema; put on `schema`'s tree. */
  fieldRules: FieldRules;
  schema: CompiledSchema;
  page: Page;
  taskDescription: string;
  includeModelInput: boolean;
  /**
   * Return each value's evidence (ExtractResponse.evidence). It is gathered for every answer, since each value's status
   * is read from it, but names elements (selectors) only when returned.
   */
  evidence: boolean;
  /** The model, or undefined for the builtin engine alone. */
  llm: ModelReader | undefined;
  bounds: CallBounds;
  /** What the page's fetcher knows of it ("render-incomplete"), returned among the answer's warnings. */
  pageWarnings: Warning[];
  /** Name the page's next listing page (ExtractRequest.want_next_page). */
  wantNextPage: boolean;
  /** Fields the caller already holds a value for: no model call for them alone (ExtractRequest.known_fields). */
  knownFields: readonly string[];
  /** Whose learned templates answer and whether the page teaches them; undefined: none (template-scope.ts). */
  templateScope: TemplateScope | undefined;
}

/** The engines' answer (builtin alone, or pre-fill and model) with what it knows of itself. */
export interface EngineAnswer {
  response: ExtractResponse;
  /** How many fields the builtin engine answered before the model (hybrid extraction only). */
  prefilled: number | undefined;
  /**
   * The fields whose answer is the builtin engine's reading, which the model did not confirm: those the pre-fill let
   * stand, and those kept where the model answered nothing, or less, or off the page (hybrid-merge.ts).
   */
  prefilledFields: string[];
  /** Set when the model read the page: which values it found on the page, and whether it read the whole page. */
  model: ModelFacts | undefined;
}

/** One extraction, as the gRPC request gave it (the main thread hands it to a worker). */
export interface ExtractionInput {
  html: string;
  url: string;
  schemaJson: string;
  /** What the caller says a field holds, by its pointer in the schema (ExtractRequest.field_hints). */
  fieldHints: FieldHints;
  /** A JSON Schema's enum, const and format, by pointer in the schema (ExtractRequest.field_rules). */
  fieldRules: FieldRules;
  taskDescription: string;
  includeModelInput: boolean;
  evidence: boolean;
  /** Whether the model reads the page (chosen by the main thread, which holds the model). */
  model: boolean;
  /** The request's deadline, ms since the epoch. */
  deadline: number | undefined;
  /** Whose templates the page reads and teaches; none for an internal caller's page. */
  templateScope: TemplateScope | undefined;
  /** What the page's fetcher knows of it (ExtractRequest.page_warnings). */
  pageWarnings: Warning[];
  /** Name the page's next listing page (ExtractRequest.want_next_page). */
  wantNextPage: boolean;
  /** Fields the caller already holds a value for: no model call for them alone (ExtractRequest.known_fields). */
  knownFields: readonly string[];
}

/** An extraction's answer, with how many fields the pre-fill and the templates answered. */
export interface Answered {
  response: ExtractResponse;
  prefilled: number | undefined;
  templated: number;
}
