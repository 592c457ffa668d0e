/**
 * Lingering close on the production server (lib/server/linger.ts): a reply sent before the
 * request's body was read reaches a client that is still sending that body, on every path
 * a request can take (the fast lane, the /cdn lane, Next's gate, static assets, Node's
 * parser refusing a chunk). Without it the server closed at once, the rest of the body met
 * a reset, and the client saw a broken pipe instead of the reply (the HTTP fuzz's
 * intermittent EPIPE of issue 31).
 *
 * Deterministic: the client does not read until its whole write was taken, so a server
 * that closes before the body is through always fails the write (tests/support/unread-body.ts).
 * Plain `next start` is checked in next-start.test.ts.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINGER_MS } from "@/lib/server/linger";
import { startTestServer, type TestServer } from "../support/server";
import { closingRequest as request, sendUnread, UNREAD_BODY as BODY } from "../support/unread-body";

describe("a reply sent before the body was read reaches the client", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    if (server) await server.stop();
  });

  it.each([
    ["the fast lane: an upload without a key", "POST", "/api/upload", "HTTP/1.1 401"],
    ["the fast lane: a JSON body over its limit", "POST", "/relay/auth/login", "HTTP/1.1 413"],
    ["the /cdn lane: a wrong method", "POST", "/cdn/abc/def.png", "HTTP/1.1 405"],
    ["Next's gate: a method Next is not given", "TRACE", "/dashboard", "HTTP/1.1 405"],
    ["Next's gate: a path that is not UTF-8", "POST", "/p/%zz", "HTTP/1.1 400"],
    ["a static asset that does not exist", "POST", "/_next/static/none.js", "HTTP/1.1 404"],
  ])("%s", async (_name, method, path, status) => {
    const outcome = await sendUnread(server.url, request(method, path), BODY);
    expect(outcome.writeError).toBeNull();
    expect(outcome.statusLine.startsWith(status), outcome.statusLine).toBe(true);
  });

  it("a chunk Node's parser refuses: the 400 arrives although the client goes on sending", async () => {
    const outcome = await sendUnread(server.url, `${request("POST", "/relay/auth/login", "", "chunked")}zz\r\n`, BODY);
    expect(outcome.writeError).toBeNull();
    expect(outcome.statusLine).toBe("HTTP/1.1 400 Bad Request");
  });

  it("a body that never ends is cut LINGER_MS after the reply, on a kept-alive connection too", async () => {
    const url = new URL(server.url);
    const closed = await new Promise<{ ms: number; reply: string }>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let reply = "";
      let repliedAt = 0;
      socket.on("connect", () => {
        socket.write("POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000000000\r\n\r\n");
        const drip = setInterval(() => socket.write(Buffer.alloc(1024, 0x61)), 50);
        socket.on("close", () => {
          clearInterval(drip);
          resolve({ ms: Date.now() - repliedAt, reply });
        });
      });
      socket.on("data", (chunk: Buffer) => {
        if (!reply) repliedAt = Date.now();
        reply += chunk.toString("latin1");
      });
      socket.on("error", () => {});
    });
    expect(closed.reply.startsWith("HTTP/1.1 401")).toBe(true);
    // Cut by the server's bound, not left open for as long as the client drips.
    expect(closed.ms).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(closed.ms).toBeLessThan(LINGER_MS + 3000);
  }, 20_000);
});
