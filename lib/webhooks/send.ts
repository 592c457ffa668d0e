/**
 * One delivery attempt to an address the guard checked: the socket connects to it (no second DNS
 * query can rebind), TLS still verifies the URL's host name, redirects are failures.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedTarget } from "./address-guard";

export const RESPONSE_SNIPPET_BYTES = 1024;

export interface AttemptResult {
  status: number;
  snippet: string;
}

export function sendWebhook(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const client = target.url.protocol === "https:" ? https : http;
  return new Promise<AttemptResult>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const request = client.request(
      target.url,
      {
        method: "POST",
        lookup: pinnedLookup(target),
        agent: false,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "Mediahost-Webhooks/1",
        },
        signal,
      },
      (response) =>
        readSnippet(
          response,
          (snippet) => {
            clearTimeout(timer);
            resolve({ status: response.statusCode ?? 0, snippet });
          },
          fail,
        ),
    );
    const timer = setTimeout(() => request.destroy(new Error(`No response within ${timeoutMs} ms.`)), timeoutMs);
    request.on("error", fail);
    request.end(body);
  });
}

/** A DNS look-up that answers with the address the guard checked, so the host cannot be rebound between check and connect. */
export function pinnedLookup(target: ResolvedTarget): LookupFunction {
  return (_host, options, callback) => {
    // net asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    else callback(null, target.address, target.family);
  };
}

function readSnippet(response: http.IncomingMessage, done: (snippet: string) => void, failed: (error: Error) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = () => done(Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString("utf8"));
  response.on("data", (chunk: Buffer) => {
    if (size < RESPONSE_SNIPPET_BYTES) chunks.push(chunk);
    size += chunk.length;
    // Enough for the log: stop reading a large (or endless) body.
    if (size >= RESPONSE_SNIPPET_BYTES) {
      response.destroy();
      finish();
    }
  });
  response.on("end", finish);
  response.on("error", failed);
}
