/**
 * What a page makes the browser download before it can run: the script files its HTML names
 * (`<script src>`) and the inline scripts (Next's RSC payload), each counted as the server
 * sends it to a client that accepts gzip and Brotli (issue 29: "JS on share pages ≤ 60 KB
 * compressed"). Read with node:http, which neither asks for nor undoes any encoding.
 */
import { request } from "node:http";
import { gzipSync } from "node:zlib";

export interface PageBytes {
  /** The script files, compressed as served. */
  scriptFiles: number;
  scriptCount: number;
  /** The inline scripts' text, gzipped (they travel inside the compressed HTML). */
  inlineScripts: number;
  /** The HTML document as served. */
  html: number;
}

interface Raw {
  status: number;
  body: Buffer;
  encoding: string | undefined;
}

function getRaw(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          encoding: res.headers["content-encoding"] as string | undefined,
        }),
      );
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

const ACCEPT = "gzip, deflate, br";

/** `url`'s script bytes; `cookie` for pages behind sign-in. */
export async function pageBytes(url: string, cookie?: string): Promise<PageBytes> {
  const headers: Record<string, string> = { "accept-encoding": ACCEPT, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/140 bench" };
  if (cookie) headers.cookie = cookie;
  const page = await getRaw(url, headers);
  if (page.status !== 200) throw new Error(`GET ${url}: ${page.status}`);
  const plain = await getRaw(url, { ...headers, "accept-encoding": "identity" });
  const html = plain.body.toString();
  // `nomodule` scripts (Next's polyfills) are never downloaded by a browser that runs modules.
  const tags = [...html.matchAll(/<script([^>]*)\ssrc="([^"]+)"([^>]*)>/g)].filter((m) => !/\snomodule/i.test(` ${m[1]} ${m[3]}`));
  const sources = [...new Set(tags.map((m) => m[2].replace(/&amp;/g, "&")))];
  let scriptFiles = 0;
  for (const src of sources) {
    const script = await getRaw(new URL(src, url).toString(), { "accept-encoding": ACCEPT });
    if (script.status !== 200) throw new Error(`GET ${src}: ${script.status}`);
    scriptFiles += script.body.length;
  }
  const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join("");
  return { scriptFiles, scriptCount: sources.length, inlineScripts: gzipSync(inline).length, html: page.body.length };
}
