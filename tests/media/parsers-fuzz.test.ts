/**
 * The parsers that read untrusted upload bytes, under generated input (docs/fuzzing.md):
 * the MP4 box reader and fast start (lib/media/mp4-boxes.ts, faststart.ts), the Matroska
 * reader and MP4 rewrite (matroska-probe.ts, matroska-to-mp4.ts), the image container surgery (image-container.ts) and type
 * sniffing (sniff.ts). Inputs are real
 * fixtures with targeted damage (truncated boxes, sizes past the end, 64-bit sizes,
 * zero-length boxes, boxes nested in themselves) and boxes built from scratch, and random
 * bytes. They must never throw anything but their documented refusal, never run away, and
 * never write outside their own output file.
 */
import { readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { fastStart } from "@/lib/media/faststart";
import { probeMatroska } from "@/lib/media/matroska-probe";
import { matroskaToMp4 } from "@/lib/media/matroska-to-mp4";
import { movToMp4 } from "@/lib/media/mov-to-mp4";
import { childBoxes, MalformedBox, topLevelBoxes as readTopLevel } from "@/lib/media/mp4-boxes";
import { rewriteImage, scanImage } from "@/lib/media/image-container";
import { sniffBuffer, sniffFile, type ImageFormat } from "@/lib/media/sniff";
import { open } from "node:fs/promises";
import { fixture, listDir, scratchDir, type FixtureName } from "../support/media";

const RUNS = Number(process.env.FUZZ_MEDIA_RUNS || 300);
const SEED = Number(process.env.FUZZ_SEED || 20261126);
/** A call that takes longer than this on a few-KB input has run away. */
const STEP_TIMEOUT_MS = 10_000;

const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl", "udta", "edts", "dinf", "meta", "mvex"]);
const BOX_TYPES = [
  "ftyp",
  "moov",
  "mdat",
  "free",
  "trak",
  "mdia",
  "minf",
  "stbl",
  "stsd",
  "stco",
  "co64",
  "mvhd",
  "tkhd",
  "mdhd",
  "hdlr",
  "udta",
  "meta",
  "uuid",
  "mvex",
  "avc1",
  "mp4a",
  "saio",
  "moof",
  "wide",
];

/** Every box header position of a well-formed MP4 (descending into the usual containers). */
function boxHeaders(buf: Buffer, from = 0, to = buf.length, out: number[] = []): number[] {
  let boxes;
  try {
    boxes = childBoxes(buf, from, to);
  } catch {
    return out;
  }
  for (const b of boxes) {
    out.push(b.start);
    if (CONTAINERS.has(b.type)) boxHeaders(buf, b.start + b.header, b.start + b.size, out);
    if (b.type === "stsd") boxHeaders(buf, b.start + b.header + 8, b.start + b.size, out);
  }
  return out;
}

type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "size"; box: number; value: number }
  | { kind: "large"; box: number; value: bigint }
  | { kind: "type"; box: number; type: string }
  | { kind: "flip"; at: number; byte: number }
  | { kind: "nest"; box: number }
  | { kind: "append"; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((at) => ({ kind: "truncate" as const, at })),
  fc
    .tuple(fc.nat(), fc.oneof(fc.constantFrom(0, 1, 7, 8, 9, 16, 0x7fffffff, 0xffffffff), fc.nat({ max: 0xffffffff })))
    .map(([box, value]) => ({ kind: "size" as const, box, value })),
  fc
    .tuple(fc.nat(), fc.oneof(fc.constantFrom(0n, 8n, 15n, 16n, 2n ** 53n, 2n ** 64n - 1n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })))
    .map(([box, value]) => ({ kind: "large" as const, box, value })),
  fc.tuple(fc.nat(), fc.constantFrom(...BOX_TYPES)).map(([box, type]) => ({ kind: "type" as const, box, type })),
  fc.tuple(fc.nat(), fc.nat({ max: 255 })).map(([at, byte]) => ({ kind: "flip" as const, at, byte })),
  fc.nat().map((box) => ({ kind: "nest" as const, box })),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: "append" as const, bytes })),
);

function mutate(source: Buffer, mutations: Mutation[]): Buffer {
  let buf = Buffer.from(source);
  for (const m of mutations) {
    const heads = boxHeaders(buf);
    const pick = (n: number) => (heads.length ? heads[n % heads.length] : 0);
    switch (m.kind) {
      case "truncate":
        buf = buf.subarray(0, m.at % (buf.length + 1));
        break;
      case "size":
        if (buf.length >= pick(m.box) + 4) buf.writeUInt32BE(m.value, pick(m.box));
        break;
      case "large": {
        // A 64-bit size: size field 1, then the large size after the type.
        const at = pick(m.box);
        if (buf.length < at + 8) break;
        const large = Buffer.alloc(8);
        large.writeBigUInt64BE(m.value);
        buf.writeUInt32BE(1, at);
        buf = Buffer.concat([buf.subarray(0, at + 8), large, buf.subarray(at + 8)]);
        break;
      }
      case "type":
        if (buf.length >= pick(m.box) + 8) buf.write(m.type, pick(m.box) + 4, "latin1");
        break;
      case "flip":
        if (buf.length) buf[m.at % buf.length] = m.byte;
        break;
      case "nest": {
        // A box that holds a copy of its own header: parsers that recurse must stop.
        const at = pick(m.box);
        if (buf.length < at + 8) break;
        const head = Buffer.from(buf.subarray(at, at + 8));
        buf = Buffer.concat([buf.subarray(0, at + 8), head, head, buf.subarray(at + 8)]);
        break;
      }
      case "append":
        buf = Buffer.concat([buf, Buffer.from(m.bytes)]);
        break;
    }
  }
  return buf;
}

/** Boxes built from nothing: any type, sizes right or wrong, nested to a few levels. */
const { box: generatedBox } = fc.letrec<{ box: Buffer; children: Buffer }>((tie) => ({
  box: fc
    .tuple(
      fc.constantFrom(...BOX_TYPES),
      fc.oneof(
        { weight: 3, arbitrary: fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)) },
        { weight: 2, arbitrary: tie("children") },
      ),
      fc.constantFrom("right", "zero", "large", "short", "past-end", "tiny"),
    )
    .map(([type, payload, sizing]) => {
      const large = sizing === "large";
      const header = Buffer.alloc(large ? 16 : 8);
      const size = header.length + payload.length;
      header.write(type, 4, "latin1");
      const value = { right: size, zero: 0, large: 1, short: Math.max(0, size - 3), "past-end": size + 1000, tiny: 4 }[sizing];
      header.writeUInt32BE(value, 0);
      if (large) header.writeBigUInt64BE(BigInt(size), 8);
      return Buffer.concat([header, payload]);
    }),
  children: fc.array(tie("box"), { maxLength: 3 }).map((boxes) => Buffer.concat(boxes)),
}));

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const load = async (name: FixtureName) => readFile(await fixture(name));

describe("MP4 boxes and fast start under generated input", () => {
  let mp4s: Buffer[] = [];
  let dir = "";
  beforeAll(async () => {
    mp4s = await Promise.all((["mp4", "mp4Silent", "mov"] as const).map(load));
    dir = await scratchDir();
  }, 120_000);

  const input = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 }))
        .map(([i, ms]) => ({ source: i, mutations: ms, generated: null as Buffer | null })),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(generatedBox, { minLength: 1, maxLength: 4 })
        .map((boxes) => ({ source: 0, mutations: [], generated: Buffer.concat(boxes) })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => ({ source: 0, mutations: [], generated: Buffer.from(b) })) },
  );
  const bytesOf = (c: { source: number; mutations: Mutation[]; generated: Buffer | null }) =>
    c.generated ?? mutate(mp4s[c.source % mp4s.length], c.mutations);

  it("childBoxes tiles its range exactly or refuses with MalformedBox", () => {
    fc.assert(
      fc.property(input, (c) => {
        const buf = bytesOf(c);
        try {
          const boxes = childBoxes(buf, 0, buf.length);
          let at = 0;
          for (const b of boxes) {
            expect(b.start).toBe(at);
            expect(b.size).toBeGreaterThanOrEqual(b.header);
            at += b.size;
          }
          expect(at).toBe(buf.length);
        } catch (error) {
          if (!(error instanceof MalformedBox)) throw error;
        }
      }),
      { numRuns: RUNS * 3, seed: SEED },
    );
  });

  it("fast start: true or false, no hang, nothing written beside its output, sizes kept", async () => {
    let n = 0;
    const outcomes = { done: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(input, fc.boolean(), fc.boolean(), fc.boolean(), async (c, consumeInput, keepMetadata, withAudio) => {
        const buf = bytesOf(c);
        const caseDir = join(dir, `c${n++}`);
        await mkdir(caseDir);
        const inPath = join(caseDir, "in.mp4");
        const outPath = join(caseDir, "out.mp4");
        await writeFile(inPath, buf);
        try {
          const done = await within(fastStart(inPath, outPath, { consumeInput, keepMetadata, withAudio, insertRange: false }), "fastStart");
          const files = await listDir(caseDir);
          outcomes[done ? "done" : "refused"]++;
          if (!done) {
            // Refused: the input is untouched and nothing else exists.
            expect(files).toEqual(["in.mp4"]);
            expect((await readFile(inPath)).equals(buf)).toBe(true);
            return;
          }
          expect(files).toEqual(consumeInput ? ["out.mp4"] : ["in.mp4", "out.mp4"]);
          if (!consumeInput) expect((await readFile(inPath)).equals(buf)).toBe(true);
          // Moving the moov forward or zeroing metadata never changes the length.
          expect((await stat(outPath)).size).toBe(buf.length);
          const handle = await open(outPath, "r");
          try {
            const top = await readTopLevel(handle, buf.length);
            expect(top[0]?.type).toBe("ftyp");
            const moov = top.findIndex((b) => b.type === "moov");
            const mdat = top.findIndex((b) => b.type === "mdat");
            expect(moov).toBeGreaterThan(-1);
            expect(moov).toBeLessThan(mdat);
          } finally {
            await handle.close();
          }
        } finally {
          await rm(caseDir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Both ways out are exercised: damage the edit survives (metadata, padding) and damage it refuses.
    expect(outcomes.done).toBeGreaterThan(RUNS / 50);
    expect(outcomes.refused).toBeGreaterThan(RUNS / 50);
  }, 300_000);

  it("MOV → MP4: true or false, no hang, nothing written beside its output, an MP4 head in front of the mdat", async () => {
    const mov = mp4s[2];
    let n = 0;
    const outcomes = { done: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean(), async (mutations, consumeInput) => {
        const buf = mutate(mov, mutations);
        const caseDir = join(dir, `m${n++}`);
        await mkdir(caseDir);
        const inPath = join(caseDir, "in.mov");
        const outPath = join(caseDir, "out.mp4");
        await writeFile(inPath, buf);
        try {
          const opts = { consumeInput, keepMetadata: false, withAudio: true, insertRange: false };
          const done = await within(movToMp4(inPath, outPath, opts), "movToMp4");
          const files = await listDir(caseDir);
          outcomes[done ? "done" : "refused"]++;
          if (!done) {
            expect(files).toEqual(["in.mov"]);
            expect((await readFile(inPath)).equals(buf)).toBe(true);
            return;
          }
          expect(files).toEqual(consumeInput ? ["out.mp4"] : ["in.mov", "out.mp4"]);
          const handle = await open(outPath, "r");
          try {
            const top = await readTopLevel(handle, (await handle.stat()).size);
            expect(top.map((b) => b.type).filter((t) => t !== "free")).toEqual(["ftyp", "moov", "mdat"]);
          } finally {
            await handle.close();
          }
        } finally {
          await rm(caseDir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(outcomes.done).toBeGreaterThan(RUNS / 50);
    expect(outcomes.refused).toBeGreaterThan(RUNS / 50);
  }, 300_000);

  it("sniffing never throws and reads only the start", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (c) => {
        const buf = bytesOf(c);
        const sniffed = sniffBuffer(buf);
        expect(sniffed === null || ["image", "video"].includes(sniffed.kind)).toBe(true);
        const path = join(dir, "sniff.bin");
        await writeFile(path, buf);
        const fromFile = await within(sniffFile(path), "sniffFile");
        expect(fromFile === null || ["image", "video"].includes(fromFile.kind)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 300_000);
});

describe("the Matroska reader under generated input", () => {
  let mkvs: Buffer[] = [];
  let dir = "";
  beforeAll(async () => {
    mkvs = await Promise.all((["mkv", "mkvHevc", "mkvAudioOnly"] as const).map(load));
    dir = await scratchDir();
  }, 120_000);

  /** Damage aimed at EBML: sizes and IDs turned to all ones (unknown), zero, or 8-byte lengths, anywhere in the head. */
  const damage = fc.oneof(
    fc.nat().map((at) => (b: Buffer) => b.subarray(0, at % (b.length + 1))),
    fc.tuple(fc.nat({ max: 2048 }), fc.constantFrom(0x00, 0x01, 0x01, 0x7f, 0x80, 0xff, 0xff)).map(([at, v]) => (b: Buffer) => {
      const c = Buffer.from(b);
      if (c.length) c[at % c.length] = v;
      return c;
    }),
    fc.tuple(fc.nat({ max: 2048 }), fc.nat({ max: 255 })).map(([at, v]) => (b: Buffer) => {
      const c = Buffer.from(b);
      if (c.length) c[at % c.length] = v;
      return c;
    }),
    fc.tuple(fc.nat({ max: 2048 }), fc.uint8Array({ maxLength: 32 })).map(([at, bytes]) => (b: Buffer) => {
      const i = at % (b.length + 1);
      return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)]);
    }),
    fc.tuple(fc.nat({ max: 2048 }), fc.nat({ max: 64 })).map(([at, n]) => (b: Buffer) => {
      const i = at % (b.length + 1);
      return Buffer.concat([b.subarray(0, i), b.subarray(Math.min(b.length, i + n))]);
    }),
  );

  it("probeMatroska: an answer or null, never a throw or a hang", async () => {
    const outcomes = { answered: 0, unknown: 0 };
    const path = join(dir, "fuzz.mkv");
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(damage, { minLength: 1, maxLength: 4 }),
        fc.option(fc.uint8Array({ maxLength: 256 }), { nil: undefined }),
        async (i, damages, random) => {
          const source = mkvs[i % mkvs.length];
          // Random bytes behind the EBML magic, or a damaged real file.
          const buf = random ? Buffer.concat([source.subarray(0, 4), Buffer.from(random)]) : damages.reduce((b, d) => d(b), source);
          await writeFile(path, buf);
          const probe = await within(probeMatroska(path), "probeMatroska");
          if (!probe) return void outcomes.unknown++;
          outcomes.answered++;
          expect(probe.streams.length).toBeGreaterThan(0);
          expect(probe.duration).toBeGreaterThan(0);
          expect(probe.size).toBe(buf.length);
        },
      ),
      { numRuns: RUNS * 2, seed: SEED },
    );
    // Both ways out are exercised: damage in the clusters leaves the head readable, damage in the
    // head does not (most of it: the CRC-32 elements catch a changed byte).
    expect(outcomes.answered).toBeGreaterThan(RUNS / 50);
    expect(outcomes.unknown).toBeGreaterThan(RUNS / 50);
  }, 300_000);

  it("matroskaToMp4: an MP4 laid out ftyp, moov, mdat, or false with nothing written; never a throw or a hang", async () => {
    const outcomes = { written: 0, refused: 0 };
    const path = join(dir, "rewrite.mkv");
    const out = join(dir, "rewrite.mp4");
    await fc.assert(
      fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
        // The H.264 + AAC fixture: the one the rewrite takes when undamaged.
        await writeFile(
          path,
          damages.reduce((b, d) => d(b), mkvs[0]),
        );
        await rm(out, { force: true });
        const written = await within(
          matroskaToMp4(path, out, { keepMetadata: false, withAudio: true, consumeInput: false }),
          "matroskaToMp4",
        );
        if (!written) {
          await expect(stat(out)).rejects.toThrow();
          return void outcomes.refused++;
        }
        outcomes.written++;
        const file = await open(out, "r");
        try {
          expect((await readTopLevel(file, (await file.stat()).size)).map((b) => b.type)).toEqual(["ftyp", "moov", "mdat"]);
        } finally {
          await file.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(outcomes.written).toBeGreaterThan(RUNS / 50);
    expect(outcomes.refused).toBeGreaterThan(RUNS / 50);
  }, 300_000);
});

describe("image container surgery under generated input", () => {
  const formats: [FixtureName, ImageFormat][] = [
    ["png", "png"],
    ["jpegExif", "jpeg"],
    ["jpegOriented", "jpeg"],
    ["webp", "webp"],
    ["webpAnimated", "webp"],
    ["gif", "gif"],
    ["gifAnimated", "gif"],
  ];
  let images: Buffer[] = [];
  beforeAll(async () => {
    images = await Promise.all(formats.map(([name]) => load(name)));
  }, 120_000);

  const damage = fc.oneof(
    fc.nat().map((at) => (b: Buffer) => b.subarray(0, at % (b.length + 1))),
    fc.tuple(fc.nat(), fc.constantFrom(0, 1, 0xff, 0x7fffffff, 0xffffffff), fc.boolean()).map(([at, v, le]) => (b: Buffer) => {
      const c = Buffer.from(b);
      const i = at % Math.max(1, c.length - 4);
      if (c.length >= i + 4) le ? c.writeUInt32LE(v >>> 0, i) : c.writeUInt32BE(v >>> 0, i);
      return c;
    }),
    fc.tuple(fc.nat(), fc.nat({ max: 255 })).map(([at, v]) => (b: Buffer) => {
      const c = Buffer.from(b);
      if (c.length) c[at % c.length] = v;
      return c;
    }),
    fc.tuple(fc.nat(), fc.uint8Array({ maxLength: 64 })).map(([at, bytes]) => (b: Buffer) => {
      const i = at % (b.length + 1);
      return Buffer.concat([b.subarray(0, i), Buffer.from(bytes), b.subarray(i)]);
    }),
  );

  it("rewriteImage returns null or a smaller file that scans again, never throws", () => {
    let rewritten = 0;
    fc.assert(
      fc.property(
        fc.nat(),
        fc.array(damage, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.uint8Array({ maxLength: 200 }), { nil: undefined }),
        (i, damages, keep, random) => {
          const [, format] = formats[i % formats.length];
          const source = images[i % images.length];
          // Random bytes behind the format's own signature, or a damaged real file.
          const buf = random ? Buffer.concat([source.subarray(0, 12), Buffer.from(random)]) : damages.reduce((b, d) => d(b), source);
          const out = rewriteImage(buf, format, keep);
          if (!out) return;
          rewritten++;
          if (!out.changed) expect(out.bytes).toBe(buf);
          // At most the one-byte GIF trailer is added; everything else is dropped or kept.
          expect(out.bytes.length).toBeLessThanOrEqual(buf.length + 1);
          expect(scanImage(out.bytes, format)).not.toBeNull();
        },
      ),
      { numRuns: RUNS * 4, seed: SEED },
    );
    expect(rewritten).toBeGreaterThan(RUNS / 10);
  });
});
