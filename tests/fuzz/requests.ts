/**
 * Generated hostile requests (docs/fuzzing.md): a target on every route of the route
 * table (both surfaces, enumerated from ROUTES), /cdn and /p, with mangled paths and query
 * strings, key headers that are absent, garbage or valid (so handlers past authentication
 * run), mangled headers, JSON and multipart bodies, and broken message framing. Each case
 * is serialized to the exact bytes sent over a raw socket.
 */
import fc from "fast-check";
import { ROUTES } from "@/lib/routes/table";
import type { RouteDef, Surface } from "@/lib/http/route";

export interface FuzzContext {
  /** api-key of an app with gallery access. */
  api: string;
  /** api-key of an app without gallery access. */
  apiUploadOnly: string;
  relay: string;
  team: string;
  /** What exists, by path parameter (`code`, `name`, `id`), so handlers find data. */
  known: { code: string[]; name: string[]; id: string[] };
}

type Bytes = string | Buffer;

export interface FuzzCase {
  method: string;
  /** The request target as sent (may hold raw bytes). */
  target: Bytes;
  headers: [string, Bytes][];
  body: Buffer;
  framing: Framing;
  /** For failure reports: which generator built what. */
  note: string;
}

/** How the body is delimited: honestly, or in ways an HTTP parser must refuse. */
export type Framing =
  | "content-length"
  | "chunked"
  | "conflicting" // Content-Length and Transfer-Encoding: chunked together
  | "double-length" // two different Content-Length headers
  | "bad-chunk" // chunked with a size that is not hex
  | "none"; // no framing header at all (a body is then not read)

/** Routes the fuzz never sends a valid key to: they would sign our own keys out. */
const SELF_DESTRUCTIVE = new Set(["deleteSessions"]);

interface Target {
  surface: Surface | "cdn" | "p" | "other";
  route: RouteDef | null;
  segments: string[];
}

const ROUTE_TARGETS: { surface: Surface; route: RouteDef }[] = ROUTES.flatMap((route) =>
  route.surfaces.map((surface) => ({ surface, route })),
);

// ───────────── path pieces ─────────────

const hex = (bytes: Buffer): string => [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");

const shareCode = fc.stringMatching(/^[A-Za-z0-9]{10}$/);
const segment = (known: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    // Real codes, names and ids most often, so that handlers find something to work on.
    { weight: 10, arbitrary: known.length ? fc.constantFrom(...known) : shareCode },
    shareCode,
    fc.constantFrom(
      "@me",
      "..",
      ".",
      "",
      "%2e%2e",
      "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
      "..%2f..%2f",
      "%00",
      "a%00b",
      "%",
      "%zz",
      "%E0%A4%A",
      "%C0%AE%C0%AE",
      "%FF%FE",
      "%F0%9F%98",
      "con",
      "__proto__",
      "constructor",
      "thumbs",
      "hls",
      "u",
    ),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
    fc.string({ unit: "binary", maxLength: 20 }).map(encodeURIComponent),
    fc.uint8Array({ maxLength: 24 }).map((b) => hex(Buffer.from(b))),
    fc.integer({ min: 65, max: 9000 }).map((n) => "a".repeat(n)),
    fc.stringMatching(/^[A-Za-z0-9._@-]{1,70}$/),
  );

/** Fills a route's `{param}` segments; sometimes adds or drops segments. */
function routeSegments(route: RouteDef, known: FuzzContext["known"], weirdSegment: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  const pattern = route.path.split("/").filter(Boolean);
  const param = (s: string) => segment(known[s.slice(1, -1) as keyof FuzzContext["known"]] ?? []);
  const filled = fc.tuple(
    ...pattern.map((s) =>
      s.startsWith("{") ? param(s) : fc.oneof({ weight: 9, arbitrary: fc.constant(s) }, { weight: 1, arbitrary: weirdSegment }),
    ),
  );
  return fc.oneof(
    { weight: 8, arbitrary: filled.map((parts) => parts as string[]) },
    { weight: 1, arbitrary: fc.tuple(filled, weirdSegment).map(([parts, extra]) => [...parts, extra]) },
    { weight: 1, arbitrary: filled.map((parts) => parts.slice(0, -1)) },
  );
}

const targets = (known: FuzzContext["known"]): fc.Arbitrary<Target> => {
  const weirdSegment = segment([...known.code, ...known.name, ...known.id]);
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc
        .constantFrom(...ROUTE_TARGETS)
        .chain(({ surface, route }) => routeSegments(route, known, weirdSegment).map((segments) => ({ surface, route, segments }))),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(weirdSegment, { minLength: 0, maxLength: 4 })
        .map((segments) => ({ surface: "cdn" as const, route: null, segments })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(weirdSegment, { minLength: 0, maxLength: 2 })
        .map((segments) => ({ surface: "p" as const, route: null, segments })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("api", "relay"), fc.array(weirdSegment, { maxLength: 4 }))
        .map(([s, segments]) => ({ surface: s as Surface, route: null, segments })),
    },
    {
      weight: 1,
      arbitrary: fc.array(weirdSegment, { maxLength: 3 }).map((segments) => ({ surface: "other" as const, route: null, segments })),
    },
  );
};

// ───────────── query strings ─────────────

const queryKey = fc.oneof(
  fc.constantFrom("limit", "cursor", "search", "privacy", "tab", "range", "exp", "sig", "__proto__", "constructor", "limit[]", "a[b]"),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
);
// Long values are rarer: past 16 KB the request line alone is refused (431) before any handler.
const queryValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "",
      "1",
      "0",
      "-1",
      "100",
      "101",
      "1e3",
      "NaN",
      "30 ",
      "public",
      "7d",
      "30d",
      "all",
      "eyJ4IjoxfQ",
      "%00",
      "%",
      "%zz",
      "true",
    ),
  },
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20000 }).map((n) => "x".repeat(n)) },
);
const query: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constant("") },
  {
    weight: 5,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
      .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}` : "")),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("?", "?&&&", "?=", "?limit", "?limit=1&limit=2", "?a=%E0%A4%A", `?${"&".repeat(5000)}`, "?%00=%00"),
  },
);

function pathOf(t: Target): string {
  const base = t.surface === "other" ? "" : `/${t.surface}`;
  const route = t.segments.length ? `/${t.segments.join("/")}` : "";
  return base + route || "/";
}

// ───────────── headers ─────────────

const KEY_NAMES = { api: "api-key", relay: "relay-key", cdn: "api-key", p: "api-key", other: "api-key" } as const;

function keyHeaders(keys: FuzzContext, surface: Target["surface"], route: RouteDef | null): fc.Arbitrary<[string, Bytes][]> {
  const name = KEY_NAMES[surface];
  const valid =
    route && SELF_DESTRUCTIVE.has(route.id)
      ? []
      : surface === "relay"
        ? [keys.relay, keys.team]
        : [keys.api, keys.apiUploadOnly, keys.team];
  const value: fc.Arbitrary<Bytes> = fc.oneof(
    { weight: valid.length ? 6 : 0, arbitrary: valid.length ? fc.constantFrom(...valid) : fc.constant("") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        " ",
        "mh_app_",
        "null",
        surface === "relay" ? keys.api : keys.relay,
        `${keys.api}x`,
        keys.api.toUpperCase(),
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }).filter((s) => !/[\r\n\0]/.test(s)) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Buffer.from(b.map((x) => (x < 32 || x === 127 ? 65 : x)))),
    },
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<[string, Bytes][]>([]) },
    { weight: 6, arbitrary: value.map((v) => [[name, v]] as [string, Bytes][]) },
    // Duplicated key headers, possibly disagreeing.
    {
      weight: 1,
      arbitrary: fc.tuple(value, value).map(
        ([a, b]) =>
          [
            [name, a],
            [name, b],
          ] as [string, Bytes][],
      ),
    },
  );
}

const headerValueText = fc.oneof(
  fc.constantFrom(
    "true",
    "false",
    "TRUE",
    " public ",
    "private",
    "unlisted",
    "png",
    "jpg",
    "gif",
    "webp",
    "mp4",
    "bytes=0-",
    "bytes=5-1",
    "bytes=-0",
    "bytes=0-1,2-3",
    '"x"',
    "*",
    "0",
    "-1",
    "1e309",
    "null",
  ),
  fc.string({ maxLength: 60 }).filter((s) => !/[\r\n\0]/.test(s)),
);
const invalidUtf8 = fc
  .uint8Array({ minLength: 1, maxLength: 30 })
  .map((b) => Buffer.concat([Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(b.map((x) => (x < 32 || x === 127 ? 0x80 : x)))]));
const extraHeader: fc.Arbitrary<[string, Bytes][]> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          "post-privacy",
          "post-type",
          "convert-target",
          "include-metadata",
          "post-code",
          "priority",
          "range",
          "if-none-match",
          "if-range",
          "if-modified-since",
          "origin",
          "sec-fetch-site",
          "cookie",
          "x-forwarded-for",
          "request-id",
          "user-agent",
          "accept",
          "accept-encoding",
          "expect",
        ),
        fc.oneof(headerValueText, invalidUtf8),
      )
      .map((h) => [h as [string, Bytes]]),
  },
  // Oversized: one header near or past Node's 16 KiB limit, or many small ones.
  { weight: 1, arbitrary: fc.integer({ min: 8000, max: 40000 }).map((n) => [["x-big", "b".repeat(n)]] as [string, Bytes][]) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 20, max: 250 })
      .map((n) => Array.from({ length: n }, (_, i) => [`x-h${i}`, "v".repeat(80)] as [string, Bytes])),
  },
  // A name with bytes a token may not hold.
  {
    weight: 1,
    arbitrary: fc.constantFrom<[string, Bytes][]>(
      [["bad header", "x"]],
      [["x-\u00e9", "x"]],
      [["", "x"]],
      [["x-nul", Buffer.from([0x61, 0x00, 0x62])]],
    ),
  },
);

// ───────────── bodies ─────────────

const jsonKey = fc.oneof(
  fc.constantFrom(
    "title",
    "description",
    "privacy",
    "access",
    "reason",
    "body",
    "nickname",
    "bio",
    "theme",
    "link_domain",
    "likes",
    "comments",
    "comment_likes",
    "follows",
    "ids",
    "username",
    "password",
    "email",
    "invite",
    "name",
    "__proto__",
    "constructor",
    "prototype",
  ),
  fc.string({ maxLength: 12 }),
);
const jsonLeaf = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, "public", "private", "", "x".repeat(31), "x".repeat(201)),
  fc.string({ maxLength: 40 }),
  fc.double(),
  fc.integer(),
);
const { json } = fc.letrec<{ json: unknown; obj: Record<string, unknown>; arr: unknown[] }>((tie) => ({
  json: fc.oneof({ depthSize: "small", withCrossShrink: true }, jsonLeaf, tie("obj"), tie("arr")),
  obj: fc.dictionary(jsonKey, tie("json"), { maxKeys: 6 }),
  arr: fc.array(tie("json"), { maxLength: 5 }),
}));

const deepJson = fc
  .tuple(fc.integer({ min: 100, max: 100_000 }), fc.constantFrom("[", '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`);
const protoJson = fc.constantFrom(
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"__proto__":null,"title":"x"}',
  '{"privacy":{"__proto__":"public"}}',
  '{"title":"a","title":"b"}',
);

/** Bodies the endpoints' schemas may accept: a few of their fields with plausible values. */
const plausibleJson = fc.record(
  {
    title: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null)),
    description: fc.string({ maxLength: 200 }),
    privacy: fc.constantFrom("public", "unlisted", "private"),
    access: fc.array(fc.constantFrom("fuzz_other", "fuzz_owner", "nobody"), { maxLength: 3 }),
    reason: fc.string({ maxLength: 200 }),
    body: fc.string({ minLength: 1, maxLength: 200 }),
    nickname: fc.string({ maxLength: 20 }),
    bio: fc.string({ maxLength: 100 }),
    theme: json,
    likes: fc.boolean(),
    follows: fc.boolean(),
    ids: fc.array(fc.string({ maxLength: 30 }), { maxLength: 3 }),
    username: fc.constantFrom("fuzz_owner", "fuzz_other", "nobody"),
    password: fc.string({ minLength: 1, maxLength: 40 }),
  },
  { requiredKeys: [] },
);

const jsonBody: fc.Arbitrary<{ body: Buffer; type: string }> = fc
  .oneof(
    { weight: 4, arbitrary: json.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 4, arbitrary: plausibleJson.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: protoJson },
    // Huge: near and past the 1 MB JSON limit.
    { weight: 1, arbitrary: fc.integer({ min: 900_000, max: 1_200_000 }).map((n) => JSON.stringify({ title: "x".repeat(n) })) },
    { weight: 1, arbitrary: fc.constantFrom("", "{", "[1,", "nul", '{"a":1}}', "\ufeff{}", "1e99999", '"\\ud800"', '{"a":"\u0000"}') },
  )
  .chain((text) =>
    fc.oneof(
      fc.constant({ body: Buffer.from(text), type: "application/json" }),
      fc
        .constantFrom("text/plain", "application/json; charset=latin1", "", "multipart/form-data")
        .map((type) => ({ body: Buffer.from(text), type })),
      fc.constant({
        body: Buffer.concat([Buffer.from(text.slice(0, 10)), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from(text.slice(10))]),
        type: "application/json",
      }),
    ),
  );

/** A 1×1 PNG, so some parts reach the image pipeline. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

const partContent: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.constant(PNG),
  fc.integer({ min: 1, max: PNG.length - 1 }).map((n) => PNG.subarray(0, n)),
  fc.constantFrom(
    Buffer.from("GIF89a"),
    Buffer.from("\x00\x00\x00\x18ftypmp42"),
    Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 "),
    Buffer.from("\xff\xd8\xff\xe0"),
  ),
);
const filename = fc.oneof(
  fc.constantFrom(
    "a.png",
    "../../../etc/passwd",
    "..\\..\\x.png",
    "a\u0000b.png",
    "\u202egnp.exe",
    "",
    `${"x".repeat(5000)}.png`,
    "%2e%2e/x.png",
    "é.png",
  ),
  fc.string({ maxLength: 30 }),
);

interface Part {
  headers: Buffer;
  content: Buffer;
}

const partHeaders = fc
  .tuple(
    fc.oneof({ weight: 8, arbitrary: fc.constant("file") }, { weight: 2, arbitrary: fc.string({ maxLength: 10 }) }),
    fc.option(filename, { nil: undefined }),
    fc.option(fc.constantFrom("image/png", "video/mp4", "application/octet-stream", "text/plain", "multipart/mixed; boundary=inner"), {
      nil: undefined,
    }),
    fc.oneof(
      { weight: 9, arbitrary: fc.constant("") },
      { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => `X-Huge: ${"h".repeat(n)}\r\n`) },
    ),
    fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  )
  .map(([name, file, type, huge, raw]) => {
    const disposition = raw
      ? "Content-Disposition: form-data; name=file; filename*=UTF-8''%E0%A4%A"
      : `Content-Disposition: form-data; name="${name}"${file === undefined ? "" : `; filename="${file}"`}`;
    return Buffer.from(`${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ""}${huge}`, "utf8");
  });

const part: fc.Arbitrary<Part> = fc.tuple(partHeaders, partContent).map(([headers, content]) => ({ headers, content }));

function assemble(boundary: string, parts: Part[], terminated: boolean): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) out.push(Buffer.from(`--${boundary}\r\n`), p.headers, Buffer.from("\r\n"), p.content, Buffer.from("\r\n"));
  if (terminated) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

const boundaryToken = fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/);

const multipartBody: fc.Arbitrary<{ body: Buffer; type: string }> = fc.oneof(
  // Well formed, or with its terminator missing, or cut short.
  {
    weight: 5,
    arbitrary: fc
      .tuple(boundaryToken, fc.array(part, { maxLength: 4 }), fc.boolean(), fc.option(fc.nat(), { nil: undefined }))
      .map(([b, parts, terminated, cut]) => {
        const body = assemble(b, parts, terminated);
        return { body: cut === undefined ? body : body.subarray(0, cut % (body.length + 1)), type: `multipart/form-data; boundary=${b}` };
      }),
  },
  // A boundary the body does not use, a missing, empty, over-long or quoted-wrongly one.
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        boundaryToken,
        fc.array(part, { minLength: 1, maxLength: 2 }),
        fc.constantFrom(
          "",
          "; boundary=",
          '; boundary=""',
          `; boundary=${"b".repeat(200)}`,
          '; boundary="unterminated',
          "; boundary=a b",
          "; boundary=other",
          "; charset=utf-8",
        ),
      )
      .map(([b, parts, param]) => ({ body: assemble(b, parts, true), type: `multipart/form-data${param}` })),
  },
  // Thousands of tiny parts.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1000, max: 10_000 }), fc.boolean()).map(([n, files]) => {
      const p: Part = {
        headers: Buffer.from(
          files ? 'Content-Disposition: form-data; name="file"; filename="a.png"\r\n' : 'Content-Disposition: form-data; name="f"\r\n',
        ),
        content: Buffer.from("x"),
      };
      return {
        body: assemble(
          "many",
          Array.from({ length: n }, () => p),
          true,
        ),
        type: "multipart/form-data; boundary=many",
      };
    }),
  },
  // Nested multipart (RFC 2388's multipart/mixed inside a file part).
  {
    weight: 1,
    arbitrary: fc.array(part, { maxLength: 3 }).map((inner) => {
      const nested = assemble("inner", inner, true);
      const outer: Part = {
        headers: Buffer.from('Content-Disposition: form-data; name="file"\r\nContent-Type: multipart/mixed; boundary=inner\r\n'),
        content: nested,
      };
      return { body: assemble("outer", [outer], true), type: "multipart/form-data; boundary=outer" };
    }),
  },
  // Random bytes declared as multipart.
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => ({ body: Buffer.from(b), type: "multipart/form-data; boundary=x" })),
  },
);

const body: fc.Arbitrary<{ body: Buffer; type: string | null }> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ body: Buffer.alloc(0), type: null }) },
  { weight: 4, arbitrary: jsonBody },
  { weight: 4, arbitrary: multipartBody },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 500 }).map((b) => ({ body: Buffer.from(b), type: "application/octet-stream" })) },
);

const framing: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 20, arbitrary: fc.constant<Framing>("content-length") },
  { weight: 3, arbitrary: fc.constant<Framing>("chunked") },
  { weight: 1, arbitrary: fc.constantFrom<Framing>("conflicting", "double-length", "bad-chunk", "none") },
);

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "get"];

export function fuzzCase(keys: FuzzContext): fc.Arbitrary<FuzzCase> {
  return targets(keys.known).chain((t) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 6, arbitrary: fc.constant(t.route?.method ?? "GET") },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        ),
        query,
        rawPath: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        keyHeaders: keyHeaders(keys, t.surface, t.route),
        // Mostly none, so that most cases get past the HTTP parser to the handlers.
        extra: fc.oneof(
          { weight: 5, arbitrary: fc.constant<[string, Bytes][]>([]) },
          { weight: 3, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 2 }).map((hs) => hs.flat()) },
        ),
        body: t.route?.multipart
          ? fc.oneof({ weight: 3, arbitrary: multipartBody }, { weight: 1, arbitrary: body })
          : t.route?.body
            ? fc.oneof({ weight: 3, arbitrary: jsonBody }, { weight: 1, arbitrary: body })
            : body,
        framing,
      })
      .map(({ method, query: q, rawPath, keyHeaders: kh, extra, body: b, framing: f }) => {
        const path = pathOf(t) + q;
        // Sometimes the path goes out as raw (unencoded, possibly invalid UTF-8) bytes.
        const targetBytes: Bytes = rawPath ? Buffer.from(decodeLoosely(path), "utf8") : path;
        const headers: [string, Bytes][] = [...kh, ...extra];
        if (b.type !== null) headers.push(["content-type", b.type]);
        return { method, target: targetBytes, headers, body: b.body, framing: f, note: `${t.surface} ${t.route?.id ?? "-"}` };
      }),
  );
}

function decodeLoosely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The exact bytes of one request. */
export function serialize(c: FuzzCase, host: string): Buffer {
  const lines: Buffer[] = [
    Buffer.from(`${c.method} `),
    Buffer.isBuffer(c.target) ? c.target : Buffer.from(c.target, "latin1"),
    Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`),
  ];
  for (const [name, value] of c.headers)
    lines.push(Buffer.from(`${name}: `), Buffer.isBuffer(value) ? value : Buffer.from(value, "utf8"), Buffer.from("\r\n"));
  const size = c.body.length;
  switch (c.framing) {
    case "content-length":
      lines.push(Buffer.from(`Content-Length: ${size}\r\n\r\n`), c.body);
      break;
    case "chunked":
      lines.push(Buffer.from("Transfer-Encoding: chunked\r\n\r\n"), chunk(c.body), Buffer.from("0\r\n\r\n"));
      break;
    case "conflicting":
      lines.push(Buffer.from(`Content-Length: ${size}\r\nTransfer-Encoding: chunked\r\n\r\n`), chunk(c.body), Buffer.from("0\r\n\r\n"));
      break;
    case "double-length":
      lines.push(Buffer.from(`Content-Length: ${size}\r\nContent-Length: ${size + 1}\r\n\r\n`), c.body);
      break;
    case "bad-chunk":
      lines.push(Buffer.from("Transfer-Encoding: chunked\r\n\r\nzz\r\n"), c.body, Buffer.from("\r\n0\r\n\r\n"));
      break;
    case "none":
      lines.push(Buffer.from("\r\n"));
      break;
  }
  return Buffer.concat(lines);
}

const chunk = (body: Buffer): Buffer =>
  body.length ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]) : Buffer.alloc(0);

/** What a report names about a case: short enough to read, exact enough to rebuild. */
export function describeCase(c: FuzzCase): string {
  const t = Buffer.isBuffer(c.target) ? c.target.toString("latin1") : c.target;
  const shown = c.headers.slice(0, 8).map(([n, v]) => `${n}: ${(Buffer.isBuffer(v) ? v.toString("latin1") : v).slice(0, 80)}`);
  if (c.headers.length > 8) shown.push(`(${c.headers.length - 8} more)`);
  const headers = shown.join(" | ");
  return `[${c.note}] ${c.method} ${t.slice(0, 200)} framing=${c.framing} body=${c.body.length}B ${JSON.stringify(c.body.subarray(0, 120).toString("latin1"))} headers: ${headers}`;
}
