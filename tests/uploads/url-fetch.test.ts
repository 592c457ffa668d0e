/**
 * The fetcher of uploads from a URL (lib/uploads/url-fetch.ts) in-process against a local
 * origin: the body reaches its temporary file while the origin is still sending (streamed,
 * never whole in memory), hashed on the way; IPv4 written inside IPv6 and redirects to other
 * schemes are refused; names come from Content-Disposition or the path.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReceivedFile } from "@/lib/uploads/multipart";
import { fetchUrlEntries, fileNameOf, type UrlFetchOptions } from "@/lib/uploads/url-fetch";
import { scratchDir } from "../support/media";

const CHUNK = Buffer.alloc(256 * 1024, 7);
const options: UrlFetchOptions = {
  maxFileBytes: 8 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 1,
  guard: { allowList: ["127.0.0.1"] },
  hash: true,
};

let server: Server;
let base: string;
/** The held response of /held: the test ends it once it has seen the file grow. */
let held: ServerResponse | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/held") {
      res.writeHead(200);
      res.write(CHUNK);
      held = res;
      return;
    }
    if (req.url === "/to-ftp") return res.writeHead(302, { location: "ftp://127.0.0.1/x" }).end();
    if (req.url === "/no-location") return res.writeHead(302).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const entry = (url: string): ReceivedFile => ({ index: 0, filename: "", size: 0, sourceUrl: url });

describe("fetchUrlEntries", () => {
  it("writes the body to disk as it arrives, and hashes it", async () => {
    const dir = await scratchDir();
    const file = entry(`${base}/held`);
    const done = fetchUrlEntries([file], dir, options);
    // The first chunk is on disk while the origin still holds the rest back.
    await expect.poll(async () => (await stat(join(dir, "url-0")).catch(() => null))?.size ?? 0, { timeout: 5000 }).toBe(CHUNK.length);
    held!.end(CHUNK);
    await done;
    expect(file.error).toBeUndefined();
    expect(file).toMatchObject({ size: 2 * CHUNK.length, filename: "held", path: join(dir, "url-0") });
    const bytes = await readFile(file.path!);
    expect(bytes.length).toBe(2 * CHUNK.length);
    expect(file.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  it("refuses private IPv4 written inside IPv6, and redirects to other schemes or nowhere", async () => {
    const dir = await scratchDir();
    const files = [entry("http://[::ffff:10.0.0.1]/x"), entry(`${base}/to-ftp`), entry(`${base}/no-location`)];
    files.forEach((f, i) => {
      f.index = i;
    });
    await fetchUrlEntries(files, dir, options);
    expect(files.map((f) => [f.error?.type, f.error?.message])).toEqual([
      ["invalid_request", expect.stringContaining("private, loopback or link-local")],
      ["invalid_request", "The upload URL must start with https:// or http://."],
      ["invalid_request", "The upload URL redirected without a Location."],
    ]);
    expect(files.every((f) => f.path === undefined)).toBe(true);
  });

  it("names files from Content-Disposition, else the path, never with a slash", () => {
    const url = new URL("https://example.com/a/b/My%20Cat.png?x=1");
    expect(fileNameOf(undefined, url)).toBe("My Cat.png");
    expect(fileNameOf('attachment; filename="shot.png"', url)).toBe("shot.png");
    expect(fileNameOf("attachment; filename*=UTF-8''caf%C3%A9.png", url)).toBe("café.png");
    expect(fileNameOf('attachment; filename="../../etc/passwd"', url)).toBe(".._.._etc_passwd");
    expect(fileNameOf(undefined, new URL("https://example.com/"))).toBe("download");
  });
});
