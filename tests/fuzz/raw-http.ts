/**
 * A bare HTTP/1.1 client over node:net: writes exactly the bytes it is given (conflicting
 * framing headers, invalid UTF-8, duplicated or oversized headers: what fetch refuses to
 * send) and reads one response until the server closes the connection.
 */
import { connect } from "node:net";

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export class NoResponse extends Error {}

/** Sends `request` (which should say `Connection: close`) and parses the reply. */
export function sendRaw(origin: URL, request: Buffer, timeoutMs: number, options: { head?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: origin.hostname, port: Number(origin.port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error: Error | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      const raw = Buffer.concat(chunks);
      try {
        resolve(parseResponse(raw));
      } catch (parseError) {
        reject(parseError instanceof Error ? parseError : new Error(String(parseError)));
      }
    };
    const timer = setTimeout(
      () => finish(new NoResponse(`no complete response within ${timeoutMs} ms (${Buffer.concat(chunks).length} bytes read)`)),
      timeoutMs,
    );
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // A complete response ends the wait even if the server lingers before closing.
      if (isComplete(Buffer.concat(chunks), options.head ?? false)) finish(null);
    });
    socket.on("end", () => finish(null));
    // A reset after a complete response (the server cut a body it stopped reading) is fine.
    socket.on("error", (error) => (chunks.length ? finish(null) : finish(error)));
    socket.on("connect", () => {
      // A server that answers early and closes may reset the rest of the write:
      // EPIPE/ECONNRESET are handled above.
      socket.write(request);
    });
  });
}

function splitHead(raw: Buffer): { head: string; body: Buffer } | null {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return null;
  return { head: raw.subarray(0, end).toString("latin1"), body: raw.subarray(end + 4) };
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine.slice(0, 100))}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(match[1]), headers };
}

/** Decodes a chunked body; null while it is incomplete. */
function dechunk(body: Buffer): Buffer | null {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd === -1) return null;
    const size = parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) throw new Error("bad chunk size in response");
    at = lineEnd + 2;
    if (size === 0) return Buffer.concat(out);
    if (body.length < at + size + 2) return null;
    out.push(body.subarray(at, at + size));
    at += size + 2;
  }
}

const bodiless = (status: number) => status === 204 || status === 304 || (status >= 100 && status < 200);

function isComplete(raw: Buffer, head: boolean): boolean {
  const parts = splitHead(raw);
  if (!parts) return false;
  const { status, headers } = parseHead(parts.head);
  if (head || bodiless(status)) return true;
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) return dechunk(parts.body) !== null;
  if (headers["content-length"] !== undefined) return parts.body.length >= Number(headers["content-length"]);
  return false;
}

export function parseResponse(raw: Buffer): RawResponse {
  const parts = splitHead(raw);
  if (!parts)
    throw new NoResponse(
      `connection closed without a response head (${raw.length} bytes: ${JSON.stringify(raw.subarray(0, 80).toString("latin1"))})`,
    );
  const { status, headers } = parseHead(parts.head);
  let body = parts.body;
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(body) ?? body;
  else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
  return { status, headers, body };
}
