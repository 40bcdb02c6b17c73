/**
 * The model engine: chat.completions calls to any OpenAI-compatible
 * endpoint. Strict json_schema structured output first; an endpoint that
 * refuses it is switched to json_object with the answer validated by Ajv
 * (remembered for the process: one engine serves one endpoint and model).
 * An answer that is not valid JSON in the schema gets one repair round.
 * 429, 5xx and connection failures are retried with jittered backoff while
 * the deadline allows. A failed call is an error, never a null-filled answer.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { deadlineSignal, type Logger, WinnowError } from "@winnow/platform";
import type { ModelInput, TokenUsage, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { Ajv, type ValidateFunction } from "ajv";
import OpenAI, { APIConnectionError, APIError } from "openai";
import type { ChatCompletion } from "openai/resources/chat/completions";
import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import {
  buildModelCall,
  type ChatMessage,
  type ModelCall,
  type OutputMode,
  type PromptRequest,
  repairMessages,
  toModelInput,
} from "./prompt.js";

export interface LlmSettings {
  /** Default: the SDK's (OpenAI). */
  baseUrl: string | undefined;
  /** Local servers (Ollama, vLLM, llama.cpp) often need none. */
  apiKey: string | undefined;
  model: string;
  /**
   * Retries of connection failures, 408/409/429 and 5xx, with jittered backoff (honouring Retry-After) inside the
   * deadline.
   */
  maxRetries: number;
  /** Per attempt; the caller's deadline bounds the whole call in any case. */
  timeoutMs: number;
}

export interface LlmAnswer {
  /** The model's JSON object, not yet shaped. */
  value: Record<string, unknown>;
  model: string;
  usage: TokenUsage;
  /** The first call as sent (a repair round adds to it). */
  modelInput: ModelInput;
  warnings: Warning[];
}

/** What an extraction needs of a model: LlmEngine, or from a worker thread the main thread's one (workers/). */
export type ModelReader = Pick<LlmEngine, "extract">;

export interface CallBounds {
  signal: AbortSignal;
  deadline: Date | undefined;
}

/** Backoff before retry n (from 0): full jitter up to 250 ms × 2ⁿ, at most 4 s. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 4_000;

export class LlmEngine {
  private readonly client: OpenAI;
  private mode: OutputMode = "json_schema";
  private readonly validators = new WeakMap<object, ValidateFunction>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });

  constructor(
    private readonly settings: LlmSettings,
    private readonly logger: Logger,
  ) {
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      // The SDK insists on a key; servers that need none ignore the header.
      apiKey: settings.apiKey ?? "none",
      // Retries are ours: the SDK's do not know the caller's deadline.
      maxRetries: 0,
      timeout: settings.timeoutMs,
    });
  }

  get model(): string {
    return this.settings.model;
  }

  /** The output mode the next call uses. */
  get outputMode(): OutputMode {
    return this.mode;
  }

  async extract(request: PromptRequest, bounds: CallBounds): Promise<LlmAnswer> {
    // Aborts when the caller cancels or the deadline passes (callFailure tells which).
    const deadline = deadlineSignal({ signal: bounds.signal, deadline: bounds.deadline });
    const { signal } = deadline;
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    const send = async (call: ModelCall, messages: ChatMessage[] = call.messages): Promise<ChatCompletion> => {
      const completion = await this.complete(call, messages, signal, bounds.deadline);
      usage.promptTokens += completion.usage?.prompt_tokens ?? 0;
      usage.completionTokens += completion.usage?.completion_tokens ?? 0;
      usage.totalTokens += completion.usage?.total_tokens ?? 0;
      return completion;
    };

    let call = buildModelCall(request, this.mode);
    let completion: ChatCompletion;
    try {
      try {
        completion = await send(call);
      } catch (error) {
        if (this.mode !== "json_schema" || !refusesJsonSchema(error)) throw error;
        // A schema the endpoint finds invalid is this schema's problem; "unsupported" is the endpoint's.
        if (!/invalid schema/i.test((error as Error).message)) {
          this.mode = "json_object";
          this.logger.warn(
            { model: this.settings.model, reason: (error as Error).message },
            "the endpoint refuses json_schema output; using json_object from now on",
          );
        }
        call = buildModelCall(request, "json_object");
        completion = await send(call);
      }
      const warnings: Warning[] = [];
      let answer = this.check(completion, request.responseFormat);
      if (answer.errors.length > 0) {
        completion = await send(call, repairMessages(call, answer.raw, answer.errors));
        answer = this.check(completion, request.responseFormat);
        if (answer.value === undefined)
          throw modelFailure(`no valid JSON object after a repair round: ${answer.errors.join("; ")}`);
        if (answer.errors.length > 0) {
          warnings.push({
            code: "schema-mismatch",
            message: `the answer still breaks the schema after a repair round (${answer.errors.join("; ")}); it was coerced into shape`,
            path: "",
          });
        }
      }
      return {
        value: answer.value!,
        model: completion.model || this.settings.model,
        usage,
        modelInput: toModelInput(call),
        warnings,
      };
    } catch (error) {
      throw callFailure(error, bounds.signal, deadline.signal);
    } finally {
      deadline.dispose();
    }
  }

  /** One request, retried on transient failures while the deadline allows. */
  private async complete(
    call: ModelCall,
    messages: ChatMessage[],
    signal: AbortSignal,
    deadline: Date | undefined,
  ): Promise<ChatCompletion> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await traced(this.settings.model, call.responseFormat.type, attempt, () =>
          this.client.chat.completions.create(
            { model: this.settings.model, messages, response_format: call.responseFormat, temperature: 0 },
            { signal },
          ),
        );
      } catch (error) {
        if (attempt >= this.settings.maxRetries || !isTransient(error) || signal.aborted) throw error;
        const wait = Math.max(
          retryAfterMs(error),
          Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt),
        );
        if (deadline && Date.now() + wait >= deadline.getTime()) throw error;
        await sleep(wait, undefined, { signal });
      }
    }
  }

  /** The answer's JSON object and what is wrong with it (nothing, when errors is empty). */
  private check(
    completion: ChatCompletion,
    format: ResponseFormatJSONSchema,
  ): { raw: string; value: Record<string, unknown> | undefined; errors: string[] } {
    const raw = answerText(completion);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { raw, value: undefined, errors: [`not valid JSON (${(error as Error).message})`] };
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { raw, value: undefined, errors: ["not a JSON object"] };
    const validate = this.validator(format);
    const errors = validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
    return { raw, value: value as Record<string, unknown>, errors };
  }

  private validator(format: ResponseFormatJSONSchema): ValidateFunction {
    // Compiled schemas are cached (schema-cache.ts), so their objects make good keys.
    let validate = this.validators.get(format);
    if (!validate) {
      validate = this.ajv.compile(format.json_schema.schema ?? {});
      this.validators.set(format, validate);
    }
    return validate;
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return (
    error instanceof APIError &&
    error.status !== undefined &&
    (error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500)
  );
}

/** The endpoint's Retry-After (retry-after-ms first, as OpenAI sends it), or 0. */
function retryAfterMs(error: unknown): number {
  if (!(error instanceof APIError)) return 0;
  const ms = Number(error.headers?.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(error.headers?.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/** A 400/422 about the output format: the endpoint does not do json_schema (or not this schema). */
function refusesJsonSchema(error: unknown): boolean {
  return (
    error instanceof APIError &&
    (error.status === 400 || error.status === 422) &&
    /response_format|json_schema|structured output|guided_json/i.test(error.message)
  );
}

function callFailure(error: unknown, callerSignal: AbortSignal, deadline: AbortSignal): unknown {
  if (callerSignal.aborted) {
    return callerSignal.reason instanceof WinnowError
      ? callerSignal.reason
      : new WinnowError("deadline-exceeded", "the call was cancelled");
  }
  if (deadline.aborted)
    return new WinnowError("deadline-exceeded", "the model did not answer before the deadline", { cause: error });
  if (error instanceof WinnowError) return error;
  // APIConnectionError covers refused connections and the SDK's own timeout.
  if (error instanceof APIConnectionError) {
    return new WinnowError("model-unavailable", "the model endpoint could not be reached", { cause: error });
  }
  if (error instanceof APIError && error.status !== undefined) {
    if (isTransient(error)) {
      return new WinnowError("model-unavailable", `the model endpoint answered ${error.status}`, {
        retryAfterMs: retryAfterMs(error),
        cause: error,
      });
    }
    // Bad key, unknown model, schema refused: repeating the call will not help.
    return new WinnowError("model-failure", `the model endpoint refused the request (${error.status})`, {
      retryable: false,
      cause: error,
    });
  }
  return error;
}

function modelFailure(reason: string): WinnowError {
  return new WinnowError("model-failure", `the model did not produce a usable answer: ${reason}`);
}

/** The answer's text; a refusal, a cut-off or a filtered answer is a failure, not something to repair. */
function answerText(completion: ChatCompletion): string {
  const choice = completion.choices?.[0];
  if (!choice) throw modelFailure("no choices in the response");
  if (choice.message.refusal) throw modelFailure("the model refused");
  if (choice.finish_reason === "length") throw modelFailure("the answer was cut off at the token limit");
  if (choice.finish_reason === "content_filter") throw modelFailure("the answer was withheld by a content filter");
  // Some OpenAI-compatible servers fence the JSON even in structured-output mode.
  const content = choice.message.content?.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  if (!content) throw modelFailure("empty content");
  return content;
}

const tracer = trace.getTracer("winnow-extractor");

/**
 * One span per model request (retries and repair rounds each get their own),
 * with the GenAI semantic-convention attributes: model and token counts, never
 * the prompt, the page or the answer.
 */
async function traced(
  model: string,
  outputMode: string,
  attempt: number,
  request: () => Promise<ChatCompletion>,
): Promise<ChatCompletion> {
  return tracer.startActiveSpan(
    `chat ${model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "winnow.output_mode": outputMode,
        "winnow.attempt": attempt,
      },
    },
    async (span) => {
      try {
        const completion = await request();
        span.setAttributes({
          "gen_ai.response.model": completion.model || model,
          "gen_ai.usage.input_tokens": completion.usage?.prompt_tokens ?? 0,
          "gen_ai.usage.output_tokens": completion.usage?.completion_tokens ?? 0,
        });
        return completion;
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: typeof status === "number" ? `HTTP ${status}` : (error as Error).name,
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
