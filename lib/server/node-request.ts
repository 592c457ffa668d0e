/**
 * The fast lane's `Request`: a view of Node's IncomingMessage with what the dispatcher and
 * the handlers read (method, url, headers, signal; bodies through lib/http/node-bridge),
 * without building an undici Request and Headers for every request. Profiled on a cached
 * GET /posts/{code}, `new Request` (URL parsing, header validation, an AbortSignal made
 * transferable) and its Headers were about a tenth of the server's time.
 *
 * It is an instance of Request (`instanceof` holds) whose own properties stand in for the
 * prototype's getters. The body readers (`json()`, `text()`, `formData()`...) and `clone()`
 * are not available: handlers read bodies through `requestBody()`, which the fast lane
 * serves from the socket's own stream.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

/** The read side of `Headers`, over Node's parsed (lower-cased, joined) request headers. */
export class NodeHeaders {
  constructor(private readonly source: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.source[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.source[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    const value = this.source["set-cookie"];
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
  }

  forEach(callback: (value: string, name: string, headers: NodeHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.source).sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  set(): never {
    throw new TypeError("Request headers are read-only.");
  }

  append(): never {
    throw new TypeError("Request headers are read-only.");
  }

  delete(): never {
    throw new TypeError("Request headers are read-only.");
  }
}

/** `url` is absolute (handlers parse it); the signal aborts when `res` closes unfinished. */
export function nodeRequest(req: IncomingMessage, res: ServerResponse, url: string): Request {
  const request = Object.create(Request.prototype) as Request;
  let signal: AbortSignal | undefined;
  Object.defineProperties(request, {
    method: { value: req.method ?? "GET", enumerable: true },
    url: { value: url, enumerable: true },
    headers: { value: new NodeHeaders(req.headers) as unknown as Headers, enumerable: true },
    // Aborted when the client goes away before the response is complete (a conversion
    // nobody will read stops and cleans up).
    signal: {
      enumerable: true,
      get(): AbortSignal {
        if (!signal) {
          const controller = new AbortController();
          res.once("close", () => {
            if (!res.writableFinished) controller.abort();
          });
          signal = controller.signal;
        }
        return signal;
      },
    },
    body: { value: null, enumerable: true },
    bodyUsed: { value: false, enumerable: true },
  });
  return request;
}
