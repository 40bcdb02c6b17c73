import { WinnowError } from "@winnow/platform";
import express, { type RequestHandler } from "express";

/** A JSON body of at most `maxBytes`, parsed; anything else is refused with its problem type. */
export function jsonBody(maxBytes: number): RequestHandler[] {
  return [
    (req, _res, next) => {
      if (!req.is("application/json")) {
        throw new WinnowError(
          "unsupported-media-type",
          "Send the request body as JSON with Content-Type: application/json.",
        );
      }
      next();
    },
    express.json({ limit: maxBytes, strict: true }),
  ];
}
