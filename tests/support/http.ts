/** Calls the real dispatchers in-process: the same code the Next route handlers run. */
import { dispatcher } from "@/lib/routes";
import type { Surface } from "@/lib/http/route";

export interface CallOptions {
  method?: string;
  key?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: BodyInit;
  ip?: string;
}

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON replies
  body: any;
  text: string;
}

export async function call(surface: Surface, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set(surface === "api" ? "api-key" : "relay-key", options.key);
  headers.set("x-client-ip", options.ip ?? "198.51.100.7");
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("content-type", "application/json");
  }
  const base = surface === "api" ? "/api" : "/relay";
  const response = await dispatcher(surface)(
    // duplex: a stream body (tests that send a body in pieces) needs it; others ignore it.
    new Request(`http://localhost${base}${path}`, { method: options.method ?? "GET", headers, body, duplex: "half" } as RequestInit),
  );
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export const api = (path: string, options?: CallOptions) => call("api", path, options);
export const relay = (path: string, options?: CallOptions) => call("relay", path, options);
