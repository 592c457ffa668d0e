import { randomBytes } from "node:crypto";
import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { useNativeBoundarySearch } from "../../lib/uploads/boundary-search";

const BOUNDARY = "----mediahost-test-7d9f2a";

type Event =
  | { kind: "file" | "field"; name: string; filename?: string; data: string; limited?: boolean }
  | { kind: "error"; message: string };

/** Parses `body` fed in `pieces`, with or without the native search: every event, in order. */
function parse(body: Buffer, pieces: number[], native: boolean, fileSize = Number.POSITIVE_INFINITY): Promise<Event[]> {
  const parser = busboy({
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    defParamCharset: "utf8",
    limits: { fileSize },
  });
  if (native) expect(useNativeBoundarySearch(parser)).toBe(true);
  const events: Event[] = [];
  return new Promise((resolve) => {
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      const event: Event = { kind: "file", name, filename: info.filename, data: "" };
      events.push(event);
      stream.on("data", (c: Buffer) => chunks.push(Buffer.from(c)));
      stream.on("limit", () => (event.limited = true));
      stream.on("error", () => undefined); // the parser reports it too
      stream.on("end", () => (event.data = Buffer.concat(chunks).toString("base64")));
    });
    parser.on("field", (name, value) => events.push({ kind: "field", name, data: value }));
    parser.on("error", (error: Error) => {
      events.push({ kind: "error", message: error.message });
      resolve(events);
    });
    parser.on("close", () => resolve(events));
    let at = 0;
    for (const size of pieces) {
      parser.write(body.subarray(at, at + size));
      at += size;
    }
    if (at < body.length) parser.write(body.subarray(at));
    parser.end();
  });
}

/** Bytes that look like the boundary's start, to trip a search that confuses prefixes with matches. */
function tricky(length: number): Buffer {
  const near = [`\r\n--${BOUNDARY.slice(0, 10)}`, "\r\n--", "\r\n-", "\r", `\r\n--${BOUNDARY.slice(0, -1)}x`, "--", "\n"];
  const parts: Buffer[] = [];
  let size = 0;
  while (size < length) {
    const piece =
      Math.random() < 0.3 ? Buffer.from(near[Math.floor(Math.random() * near.length)]) : randomBytes(1 + Math.floor(Math.random() * 40));
    parts.push(piece);
    size += piece.length;
  }
  return Buffer.concat(parts).subarray(0, length);
}

function body(files: Buffer[], field?: string): Buffer {
  const parts: Buffer[] = [Buffer.from("preamble to ignore\r\n")];
  if (field !== undefined) parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="url"\r\n\r\n${field}\r\n`));
  files.forEach((f, i) => {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="clip ${i} é.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
      ),
    );
    parts.push(f, Buffer.from("\r\n"));
  });
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

function randomPieces(total: number, max: number): number[] {
  const pieces: number[] = [];
  for (let left = total; left > 0; ) {
    const n = Math.min(left, 1 + Math.floor(Math.random() * max));
    pieces.push(n);
    left -= n;
  }
  return pieces;
}

describe("native boundary search in the multipart parser", () => {
  it("fits the installed busboy (a version that changes its shape turns this red, not the uploads slow)", () => {
    const parser = busboy({ headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(useNativeBoundarySearch(parser)).toBe(true);
    expect(useNativeBoundarySearch({})).toBe(false);
  });

  it("reports the same parts as streamsearch for every split of a small body", async () => {
    const input = body([tricky(120), Buffer.alloc(0), tricky(30)], "https://example.com/a.png");
    const expected = await parse(input, [input.length], false);
    expect(expected.filter((e) => e.kind === "file")).toHaveLength(3);
    for (let cut = 1; cut < input.length; cut++) {
      expect(await parse(input, [cut], true)).toEqual(expected);
    }
  });

  it("reports the same parts as streamsearch for large bodies in random pieces", async () => {
    for (let round = 0; round < 12; round++) {
      const input = body(
        [tricky(round === 0 ? 20_000 : 200_000), tricky(1 + Math.floor(Math.random() * 5000))],
        round % 2 ? "x" : undefined,
      );
      const pieces = randomPieces(input.length, round === 0 ? 7 : 70_000);
      const [expected, actual] = await Promise.all([parse(input, pieces, false), parse(input, pieces, true)]);
      expect(actual).toEqual(expected);
    }
  });

  it("keeps busboy's limits and errors: a file over its size, a body cut short", async () => {
    const input = body([tricky(10_000)]);
    const pieces = randomPieces(input.length, 3000);
    const limited = await parse(input, pieces, true, 4000);
    expect(limited).toEqual(await parse(input, pieces, false, 4000));
    expect(limited[0]).toMatchObject({ kind: "file", limited: true });
    const cut = input.subarray(0, input.length - 20);
    const broken = await parse(cut, randomPieces(cut.length, 3000), true);
    expect(broken.at(-1)).toEqual({ kind: "error", message: "Unexpected end of form" });
  });
});
