/**
 * Realistic GIF posts for bench/gifs.ts, written in bulk straight through the database
 * drivers (better-sqlite3, pg): a million posts must take minutes, and Prisma's
 * row-at-a-time writes would take hours.
 *
 * Titles are short reaction-GIF captions ("grumpy cat falling off couch", "happy
 * birthday") from a vocabulary with a skewed (Zipf-like) word frequency, so some words
 * are in a large share of posts and others in very few, like real captions. About a
 * third of the posts also have a description. A few percent are unlisted, private or
 * moderated, and some authors are suspended, so the listing rules have something to
 * reject. Everything is derived from the post's number: the same size gives the same rows.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { normaliseWords } from "../lib/posts/words";

const NOUNS =
  "cat dog baby puppy kitten grandma dad mom kid toddler parrot goat horse penguin panda otter raccoon hamster duck bear monkey fox frog owl llama seal corgi husky teacher chef goalkeeper referee dancer skater surfer gamer cowboy robot alien zombie pirate ninja wizard squirrel hedgehog sloth capybara dolphin shark crab chicken".split(
    " ",
  );
const VERBS =
  "dancing jumping falling sneezing laughing crying running sleeping eating singing spinning waving hugging slipping flipping yawning screaming winking clapping celebrating sliding skating surfing driving cooking swimming climbing sneaking stretching bouncing".split(
    " ",
  );
const ADJECTIVES =
  "funny happy sad angry cute tiny giant fluffy grumpy sleepy crazy epic awkward excited confused surprised shocked lazy silly proud nervous chonky majestic derpy dramatic smug".split(
    " ",
  );
const PLACES =
  "couch kitchen beach snow pool office stage car bed ball box door stairs treadmill mirror garden table window skateboard trampoline".split(
    " ",
  );
const REACTIONS = [
  "reaction",
  "mood",
  "vibes",
  "wow",
  "yes",
  "nope",
  "omg",
  "lol",
  "facepalm",
  "mic drop",
  "thank you",
  "congrats",
  "happy birthday",
  "good morning",
  "good night",
  "bye",
  "hello",
  "mind blown",
  "deal with it",
  "shrug",
  "eye roll",
  "slow clap",
  "same",
  "monday mood",
  "friday feeling",
  "party time",
  "oops",
  "yikes",
];

/** mulberry32: a small, fast, seedable PRNG. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Skewed pick: early entries are much more frequent than late ones. */
const pick = <T>(list: readonly T[], r: () => number): T => list[Math.floor(list.length * r() ** 2.2)];

/** Words joined while they fit in `max` characters (titles: 30, descriptions: 200). */
function fit(words: string[], max: number): string {
  let out = "";
  for (const w of words) {
    const next = out ? `${out} ${w}` : w;
    if (next.length > max) break;
    out = next;
  }
  return out;
}

function title(r: () => number): string {
  const n = pick(NOUNS, r);
  const v = pick(VERBS, r);
  const a = pick(ADJECTIVES, r);
  const p = pick(PLACES, r);
  const x = pick(REACTIONS, r);
  const templates = [
    [a, n, v],
    [n, v, "on", "the", p],
    [a, n],
    [n, v],
    [x],
    ["when", "the", n, "is", v],
    [n, v, x],
    [a, n, v, "off", p],
    [x, a, n],
  ];
  const words = templates[Math.floor(r() * templates.length)].join(" ").split(" ");
  const text = fit(words, 30);
  // Capitalised like people type, so the search's case folding has work to do.
  return r() < 0.5 ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

function description(r: () => number): string | null {
  if (r() >= 0.33) return null;
  const phrases: string[] = [];
  const count = 1 + Math.floor(r() * 3);
  for (let i = 0; i < count; i++) {
    const templates = [
      ["the", pick(ADJECTIVES, r), pick(NOUNS, r), "is", pick(VERBS, r), "on", "the", pick(PLACES, r)],
      ["my", pick(NOUNS, r), "when", "the", pick(NOUNS, r), "starts", pick(VERBS, r)],
      [pick(REACTIONS, r), "from", "the", pick(ADJECTIVES, r), pick(NOUNS, r)],
    ];
    phrases.push(templates[Math.floor(r() * templates.length)].join(" "));
  }
  return fit(phrases.join(", ").split(" "), 200);
}

export const AUTHORS = 2_000;
/** Authors whose posts must not be listed. */
export const SUSPENDED_AUTHORS = 10;
/** A million posts are spread over the three years before this instant, post 0 the oldest. */
const END = Date.UTC(2026, 0, 1);
const START = END - 3 * 365 * 24 * 3600 * 1000;
/** About 95 s between posts; a little jitter, never enough to reorder them. */
const STEP_MS = (END - START) / 1_000_000;

export interface SeedPost {
  id: string;
  code: string;
  userId: string;
  privacy: "public" | "unlisted" | "private";
  moderated: boolean;
  title: string;
  description: string | null;
  createdAt: Date;
  words: string[];
}

export const authorId = (i: number): string => `benchuser${String(i).padStart(6, "0")}`;

/** Post number `i`: the same every run. Ids are 24 hex characters like lib/db/ids.ts makes. */
export function seedPost(i: number): SeedPost {
  const r = random(i * 2654435761 + 1);
  const id = Array.from({ length: 3 }, () =>
    Math.floor(r() * 2 ** 32)
      .toString(16)
      .padStart(8, "0"),
  ).join("");
  const t = title(r);
  const d = description(r);
  const roll = r();
  const privacy = roll < 0.015 ? "unlisted" : roll < 0.025 ? "private" : "public";
  return {
    id,
    code: `b${i.toString(36)}`,
    userId: authorId(Math.floor(r() * AUTHORS)),
    privacy,
    moderated: r() < 0.003,
    title: t,
    description: d,
    createdAt: new Date(START + Math.floor((i + r() * 0.5) * STEP_MS)),
    words: normaliseWords(`${t} ${d ?? ""}`),
  };
}

/** The search words the bench asks for, sure to exist in the vocabulary. */
export const SEARCHES = {
  one_word: ["cat", "danc", "reaction", "grumpy", "penguin"],
  two_words: ["funny cat", "dog danc", "happy birthday", "sleepy panda", "cat couch"],
} as const;

// ───────────────────────────── writers ─────────────────────────────

export interface BulkWriter {
  /** Creates the authors (once). */
  authors(): Promise<void>;
  /** Writes posts [from, to) with one GIF file each and their word rows. */
  posts(from: number, to: number): Promise<void>;
  /**
   * Drops the non-unique indexes, runs `load`, then creates them again from their own
   * definitions: sorting once is far faster than millions of random index inserts.
   */
  withoutIndexes(load: () => Promise<void>): Promise<void>;
  /** Refreshes planner statistics where the database would do so itself. */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

const BATCH = 20_000;
/** SQLite stores Prisma DateTime as ISO text with "+00:00"; written the same way here. */
const sqliteDate = (d: Date): string => d.toISOString().replace("Z", "+00:00");

export function sqliteWriter(file: string): BulkWriter {
  const sqlite = new Database(file);
  // Bulk load only: a crash loses the benchmark database, nothing else.
  sqlite.pragma("synchronous = OFF");
  sqlite.pragma("cache_size = -1000000");
  const now = sqliteDate(new Date(END));
  const insertUser = sqlite.prepare(
    `INSERT INTO "User" ("id", "username", "displayUsername", "suspended", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertPost = sqlite.prepare(
    `INSERT INTO "Post" ("id", "code", "userId", "privacy", "title", "description", "moderated", "firstFileGif", "fileCount", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?)`,
  );
  const insertFile = sqlite.prepare(
    `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType", "width", "height", "createdAt")
     VALUES (?, ?, 0, 'clip.gif', ?, 482133, 'image/gif', 480, 270, ?)`,
  );
  const insertWord = sqlite.prepare(`INSERT INTO "PostWord" ("word", "postId", "postCreatedAt", "publicGif") VALUES (?, ?, ?, ?)`);
  const writeBatch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const p = seedPost(i);
      const at = sqliteDate(p.createdAt);
      insertPost.run(p.id, p.code, p.userId, p.privacy, p.title, p.description, p.moderated ? 1 : 0, at, at);
      insertFile.run(`f${p.id}`, p.id, `p/${p.id}/clip.gif`, at);
      for (const w of p.words) insertWord.run(w, p.id, at, p.privacy === "public" ? 1 : 0);
    }
  });
  return {
    async authors() {
      sqlite.transaction(() => {
        for (let i = 0; i < AUTHORS; i++) insertUser.run(authorId(i), `bench${i}`, `Bench${i}`, i < SUSPENDED_AUTHORS ? 1 : 0, now, now);
      })();
    },
    async posts(from, to) {
      for (let start = from; start < to; start += BATCH) writeBatch(start, Math.min(to, start + BATCH));
    },
    async withoutIndexes(load) {
      const indexes = sqlite
        .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'`)
        .all() as { name: string; sql: string }[];
      for (const index of indexes) sqlite.exec(`DROP INDEX "${index.name}"`);
      await load();
      for (const index of indexes) sqlite.exec(index.sql);
    },
    async analyze() {
      // The service never runs ANALYZE on SQLite, so the benchmark does not either: the
      // plans must be right without statistics.
    },
    async close() {
      sqlite.close();
    },
  };
}

export function postgresWriter(url: string, schema: string): BulkWriter {
  const client = new pg.Client({ connectionString: url });
  const ready = (async () => {
    await client.connect();
    await client.query(`SET search_path TO "${schema}"`);
    await client.query("SET synchronous_commit = off");
  })();
  return {
    async authors() {
      await ready;
      const ids = Array.from({ length: AUTHORS }, (_, i) => authorId(i));
      await client.query(
        `INSERT INTO "User" ("id", "username", "displayUsername", "suspended", "createdAt", "updatedAt")
         SELECT id, 'bench' || n, 'Bench' || n, n < $2, $3, $3 FROM unnest($1::text[]) WITH ORDINALITY AS u(id, n)`,
        [ids, SUSPENDED_AUTHORS + 1, new Date(END)],
      );
    },
    async posts(from, to) {
      await ready;
      for (let start = from; start < to; start += BATCH) {
        const batch = Array.from({ length: Math.min(to, start + BATCH) - start }, (_, k) => seedPost(start + k));
        const words = batch.flatMap((p) => p.words.map((w) => ({ w, p })));
        await client.query("BEGIN");
        await client.query(
          `INSERT INTO "Post" ("id", "code", "userId", "privacy", "title", "description", "moderated", "firstFileGif", "fileCount", "createdAt", "updatedAt")
           SELECT id, code, uid, privacy, title, description, moderated, true, 1, at, at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::timestamp[])
               AS u(id, code, uid, privacy, title, description, moderated, at)`,
          [
            batch.map((p) => p.id),
            batch.map((p) => p.code),
            batch.map((p) => p.userId),
            batch.map((p) => p.privacy),
            batch.map((p) => p.title),
            batch.map((p) => p.description),
            batch.map((p) => p.moderated),
            batch.map((p) => p.createdAt.toISOString()),
          ],
        );
        await client.query(
          `INSERT INTO "File" ("id", "postId", "index", "name", "storageKey", "size", "mimeType", "width", "height", "createdAt")
           SELECT 'f' || id, id, 0, 'clip.gif', 'p/' || id || '/clip.gif', 482133, 'image/gif', 480, 270, at
             FROM unnest($1::text[], $2::timestamp[]) AS u(id, at)`,
          [batch.map((p) => p.id), batch.map((p) => p.createdAt.toISOString())],
        );
        await client.query(
          `INSERT INTO "PostWord" ("word", "postId", "postCreatedAt", "publicGif")
           SELECT * FROM unnest($1::text[], $2::text[], $3::timestamp[], $4::boolean[])`,
          [
            words.map((x) => x.w),
            words.map((x) => x.p.id),
            words.map((x) => x.p.createdAt.toISOString()),
            words.map((x) => x.p.privacy === "public"),
          ],
        );
        await client.query("COMMIT");
      }
    },
    async withoutIndexes(load) {
      await ready;
      const { rows: indexes } = await client.query<{ name: string; definition: string }>(
        `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
          WHERE i.schemaname = $1 AND i.indexdef NOT LIKE 'CREATE UNIQUE%'`,
        [schema],
      );
      for (const index of indexes) await client.query(`DROP INDEX "${index.name}"`);
      await load();
      await client.query("SET maintenance_work_mem = '512MB'");
      for (const index of indexes) await client.query(index.definition);
    },
    async analyze() {
      // What autovacuum does on its own after a bulk load (statistics, and the visibility
      // map that index-only scans rely on), done now so the run is repeatable.
      await client.query("VACUUM ANALYZE");
    },
    async close() {
      await ready.catch(() => undefined);
      await client.end();
    },
  };
}
