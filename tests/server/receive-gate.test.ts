import { readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { freePort, startTestServer, type TestServer } from "../support/server";
import { serverApp, serverUser } from "../support/server-accounts";

const BOUNDARY = "----gate-test";

/** A whole multipart upload body for one PNG. */
function body(png: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** An upload over a raw socket, sent in the pieces the test chooses; `status` settles with the reply's. */
function rawUpload(port: number, key: string, size: number) {
  const socket: Socket = connect(port, "127.0.0.1");
  let received = "";
  const status = new Promise<number>((resolve) => {
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) resolve(Number(match[1]));
    });
    socket.on("close", () => resolve(0));
    socket.on("error", () => undefined);
  });
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\napi-key: ${key}\r\npost-privacy: unlisted\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`,
  );
  return { send: (bytes: Buffer) => socket.write(bytes), leave: () => socket.destroy(), status };
}

describe("uploads waiting for a place to be received", () => {
  let server: TestServer;
  let port: number;
  let keys: string[];
  let png: Buffer;

  beforeAll(async () => {
    port = await freePort();
    server = await startTestServer({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      UPLOAD_RECEIVE_SLOTS: "1",
      UPLOAD_RECEIVE_STALL_MS: "600000",
      UPLOAD_RECEIVE_HOLD_MS: "600000",
    });
    keys = [];
    for (const name of ["gate_a", "gate_b", "gate_c"]) {
      await serverUser(server, name);
      keys.push((await serverApp(server, name, "test")).key);
    }
    png = await readFile(await fixture("png"));
  }, 180_000);
  afterAll(async () => {
    if (server) await server.stop();
  });

  const fetchUpload = () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "c.png");
    return fetch(`${server.url}/api/upload`, { method: "POST", body: form, headers: { "api-key": keys[2], "post-privacy": "unlisted" } });
  };

  it("a client that leaves half-way through its body hands the place on", async () => {
    const whole = body(png);
    const leaving = rawUpload(port, keys[0], whole.length);
    leaving.send(whole.subarray(0, whole.length >> 1));
    await sleep(200); // it holds the only place
    leaving.leave();
    const next = await fetchUpload();
    expect(next.status).toBe(200);
  });

  it("a client that leaves while waiting does not keep the place from the ones after it", async () => {
    const whole = body(png);
    const holder = rawUpload(port, keys[0], whole.length);
    holder.send(whole.subarray(0, whole.length >> 1));
    await sleep(200);
    const waiter = rawUpload(port, keys[1], whole.length);
    waiter.send(whole.subarray(0, 100));
    await sleep(200); // waiting, paused
    waiter.leave();
    const third = fetchUpload();
    await sleep(200);
    holder.send(whole.subarray(whole.length >> 1));
    expect(await holder.status).toBe(200);
    expect((await third).status).toBe(200);
  });
});
