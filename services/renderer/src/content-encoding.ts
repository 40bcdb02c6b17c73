import { Transform } from "node:stream";
import zlib from "node:zlib";
import { WinnowError } from "@winnow/platform";

// zstd decoding arrived in Node 22.15; on older versions targets are not offered it.
const createZstdDecompress = (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress;

const DECODERS: Record<string, () => Transform> = {
  gzip: zlib.createGunzip,
  "x-gzip": zlib.createGunzip,
  deflate: zlib.createInflate,
  br: zlib.createBrotliDecompress,
  ...(createZstdDecompress ? { zstd: createZstdDecompress } : {}),
};

/** What targets are offered: exactly the codings this module decodes. */
export const ACCEPT_ENCODING = Object.keys(DECODERS)
  .filter((coding) => coding !== "x-gzip")
  .join(", ");

/**
 * A decoder for a response's Content-Encoding, undefined when the body is
 * not encoded. Anything else (an unknown or stacked coding) is refused as
 * unsupported-content: an encoded body is never passed on undecoded, where
 * its size could not be measured.
 */
export function decoderFor(contentEncoding: string): Transform | undefined {
  const codings = contentEncoding
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding && coding !== "identity");
  const make = codings.length === 1 ? DECODERS[codings[0]!] : undefined;
  if (codings.length > 0 && !make) {
    throw new WinnowError(
      "unsupported-content",
      `the target used an unsupported content encoding (${contentEncoding.slice(0, 64)})`,
    );
  }
  const decoder = make?.();
  decoder?.once("error", (error) => decodingErrors.add(error));
  return decoder;
}

/** Errors raised by decoders, to tell a corrupt body from a failed connection once a pipeline reports one. */
const decodingErrors = new WeakSet<Error>();

/**
 * The problem for a body its content encoding could not decode (corrupt, or
 * cut off mid-stream); undefined when `error` came from elsewhere.
 */
export function decodingProblem(error: unknown, contentEncoding: string): WinnowError | undefined {
  if (!(error instanceof Error && decodingErrors.has(error))) return undefined;
  const coding = contentEncoding.trim().toLowerCase();
  return new WinnowError("target-unreachable", `the page body is not valid ${coding} (${codeOf(error)})`, {
    cause: error,
  });
}

export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" ? code : "network error";
}

/**
 * Passes bytes through until more than `maxBytes` have gone by, then fails
 * with page-too-large. Placed before a decoder it caps the body as sent,
 * after one the body as decoded (a small "bomb" can inflate without bound).
 */
export function byteCap(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new WinnowError("page-too-large", `the page is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}
