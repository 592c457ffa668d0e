/** Reading and parsing a request's parts: path and query against their schemas, the JSON body within its limit. */
import type { z } from "zod";
import { DomainError, isDomainError } from "@/lib/errors";
import { readRequestBody } from "./node-bridge";
import { describeZodError } from "./parse";
import type { RouteDef } from "./route";

/** `input` through `schema` (as it is without one); a failure is 400 naming `where` (path, query, body). */
export function parseWith(schema: z.ZodType | undefined, input: unknown, where: string): unknown {
  if (!schema) return input;
  const result = schema.safeParse(input);
  if (!result.success) throw new DomainError("invalid_request", describeZodError(where, result.error, input));
  return result.data;
}

/** The route's JSON body, parsed; an empty body is `{}`. */
export async function parseBody(route: RouteDef, request: Request): Promise<unknown> {
  if (!route.body) return undefined;
  const text = await readTextBody(request, JSON_BODY_LIMIT);
  let value: unknown = {};
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new DomainError("invalid_request", "The request body is not valid JSON.");
    }
  }
  return parseWith(route.body, value, "body");
}

/** JSON bodies are small; a bigger one is refused while reading, never buffered whole. */
const JSON_BODY_LIMIT = 1024 * 1024;

async function readTextBody(request: Request, limit: number): Promise<string> {
  const tooLarge = () => new DomainError("file_too_large", `The request body is over ${limit} bytes.`);
  if (Number(request.headers.get("content-length") || 0) > limit) throw tooLarge();
  let bytes: Buffer;
  try {
    bytes = await readRequestBody(request, limit, tooLarge);
  } catch (error) {
    if (isDomainError(error)) throw error;
    throw new DomainError("invalid_request", "The request body could not be read.");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError("invalid_request", "The request body is not valid UTF-8.");
  }
}
