/** Imports from other hosts (docs/migrate.md): one JSON summary, progress on stderr. */
import { z } from "zod";
import { cliActor, recordAudit } from "@/lib/audit/log";
import { DomainError } from "@/lib/errors";
import { type ImportRunSummary, type Owners, runImport } from "@/lib/imports/run";
import { openShareXHistory } from "@/lib/imports/sharex";
import { normaliseHost, type ImportSource } from "@/lib/imports/source";
import { openChibisafe } from "@/lib/imports/chibisafe";
import { openXBackBone } from "@/lib/imports/xbackbone";
import { openZipline } from "@/lib/imports/zipline";
import { bucketStore, diskStore, peerStore, type BucketOptions, type PeerStore } from "@/lib/imports/peer-files";
import { PLANS, type Plan } from "@/lib/plans";
import { PRIVACIES, type Privacy } from "@/lib/posts/privacy";
import { requireUser } from "@/lib/users/accounts";
import { type Command, type CommandOutput, command } from "./command";

const needs = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `needs a value (${what})`);
const value = (what: string) =>
  z
    .string({ error: needs(what) })
    .trim()
    .min(1, `needs a value (${what})`);
const toggle = z
  .union([z.literal(true), z.enum(["true", "false"])], { error: "takes no value, or true or false" })
  .optional()
  .transform((v) => v === true || v === "true");
const privacy = z.enum(PRIVACIES as unknown as [Privacy, ...Privacy[]], { error: `must be one of ${PRIVACIES.join(", ")}` }).optional();
const plan = z.enum(PLANS as unknown as [Plan, ...Plan[]], { error: `must be one of ${PLANS.join(", ")}` }).optional();

/** Host names (a URL is taken for its host). */
const hosts = value("host names, comma-separated").transform((text, ctx) => {
  const out: string[] = [];
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const host = normaliseHost(part);
    if (!host) {
      ctx.addIssue({ code: "custom", message: `'${part}' is not a host name` });
      return z.NEVER;
    }
    if (!out.includes(host)) out.push(host);
  }
  return out;
});

const userMap = value("auto, or old=new pairs").transform((text, ctx) => {
  const map = new Map<string, string>();
  let auto = false;
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part === "auto") auto = true;
    else if (/^[^=]+=[^=]+$/.test(part)) map.set(part.split("=")[0].trim().toLowerCase(), part.split("=")[1].trim());
    else {
      ctx.addIssue({ code: "custom", message: `'${part}' is neither auto nor old=new` });
      return z.NEVER;
    }
  }
  return { auto, map };
});

async function owners(flags: { user?: string; "map-users"?: { auto: boolean; map: Map<string, string> }; plan?: Plan }): Promise<Owners> {
  if (flags.user && flags["map-users"]) throw new DomainError("invalid_request", "Give --user or --map-users, not both.");
  if (flags.user) return { kind: "user", account: await requireUser(flags.user) };
  if (flags["map-users"]) return { kind: "map", ...flags["map-users"], plan: flags.plan ?? "free" };
  throw new DomainError("invalid_request", "Give --user U (everything to one account) or --map-users auto|old=new,...");
}

async function run(source: ImportSource, who: Owners, options: { privacy?: Privacy; dryRun: boolean }): Promise<CommandOutput> {
  let summary: ImportRunSummary;
  try {
    summary = await runImport(source, {
      owners: who,
      privacy: options.privacy ?? "unlisted",
      dryRun: options.dryRun,
      progress: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await source.close();
  }
  if (!options.dryRun && summary.files.imported + summary.links.imported > 0) {
    const accounts = who.kind === "user" ? [{ id: who.account.id, username: who.account.displayUsername }] : summary.users;
    for (const account of accounts) {
      if (!account.id) continue;
      await recordAudit(
        cliActor(),
        "user.import",
        { type: "user", id: account.id, label: account.username },
        {
          source: summary.source,
          files: summary.files.imported,
          links: summary.links.imported,
        },
      );
    }
  }
  return summaryJson(summary);
}

function summaryJson(s: ImportRunSummary): CommandOutput {
  return {
    source: s.source,
    dry_run: s.dryRun,
    files: { imported: s.files.imported, would_import: s.files.wouldImport, already_imported: s.files.already, bytes: s.files.bytes },
    links: { imported: s.links.imported, would_import: s.links.wouldImport, already_imported: s.links.already },
    users: s.users.map((u) => ({
      username: u.username,
      peer_username: u.peerUsername,
      id: u.id,
      created: u.created,
      reset_link: u.resetLink,
      note: u.note,
    })),
    skipped: s.skipped,
    clashes: s.clashes,
  };
}

const peerFlags = {
  "old-host": hosts,
  user: value("a username or user id").optional(),
  "map-users": userMap.optional(),
  plan,
  privacy,
  "dry-run": toggle,
};
const PEER_USAGE = "--old-host H[,H2] (--user U | --map-users auto|old=new,...) [--plan P] [--privacy P] [--dry-run]";

/** Where the peer's files are, besides its folder (docs/migrate.md, "Files on S3"). */
const bucketFlags = {
  bucket: value("s3://BUCKET or s3://BUCKET/PREFIX").optional(),
  "s3-endpoint": value("the S3 endpoint URL").optional(),
  "s3-region": value("the S3 region").optional(),
};
const BUCKET_USAGE = "--bucket s3://BUCKET[/PREFIX] [--s3-endpoint URL] [--s3-region R]";

type BucketFlags = { bucket?: string; "s3-endpoint"?: string; "s3-region"?: string };
function bucketOf(flags: BucketFlags): BucketOptions | undefined {
  if (!flags.bucket) {
    if (flags["s3-endpoint"] || flags["s3-region"])
      throw new DomainError("invalid_request", "--s3-endpoint and --s3-region go with --bucket.");
    return undefined;
  }
  return { url: flags.bucket, endpoint: flags["s3-endpoint"], region: flags["s3-region"] };
}

/** Opens the source over its stores, runs the import, and closes the stores whatever happens. */
async function withStores(
  stores: (PeerStore | null)[],
  open: () => Promise<ImportSource>,
  who: Owners,
  options: { privacy?: Privacy; dryRun: boolean },
): Promise<CommandOutput> {
  try {
    return await run(await open(), who, options);
  } finally {
    for (const store of stores) store?.close();
  }
}

const ziplineCommand = (): Command =>
  command(
    "import zipline",
    `--from postgresql://... (--uploads DIR | ${BUCKET_USAGE}) ${PEER_USAGE}`,
    { from: value("the Zipline database URL"), uploads: value("Zipline's upload directory").optional(), ...bucketFlags, ...peerFlags },
    async (flags) => {
      const who = await owners(flags);
      const store = await peerStore({ dir: flags.uploads, dirFlag: "--uploads", bucket: bucketOf(flags) });
      const open = () => openZipline({ url: flags.from, store, hosts: flags["old-host"] });
      return withStores([store], open, who, { privacy: flags.privacy, dryRun: flags["dry-run"] });
    },
  );

const chibisafeCommand = (): Command =>
  command(
    "import chibisafe",
    `--from database.sqlite [--uploads DIR] [${BUCKET_USAGE}] ${PEER_USAGE}`,
    { from: value("Chibisafe's database.sqlite"), uploads: value("Chibisafe's uploads folder").optional(), ...bucketFlags, ...peerFlags },
    async (flags) => {
      const who = await owners(flags);
      const bucket = bucketOf(flags);
      if (!flags.uploads && !bucket) throw new DomainError("invalid_request", "Give --uploads DIR, --bucket s3://BUCKET, or both.");
      const stores = { disk: flags.uploads ? diskStore(flags.uploads) : null, bucket: bucket ? await bucketStore(bucket) : null };
      const open = () => openChibisafe({ path: flags.from, stores, hosts: flags["old-host"] });
      return withStores([stores.disk, stores.bucket], open, who, { privacy: flags.privacy, dryRun: flags["dry-run"] });
    },
  );

const xbackboneCommand = (): Command =>
  command(
    "import xbackbone",
    `--from xbackbone.db (--storage DIR | ${BUCKET_USAGE}) ${PEER_USAGE}`,
    { from: value("XBackBone's SQLite database"), storage: value("XBackBone's storage folder").optional(), ...bucketFlags, ...peerFlags },
    async (flags) => {
      const who = await owners(flags);
      const store = await peerStore({ dir: flags.storage, dirFlag: "--storage", bucket: bucketOf(flags) });
      const open = () => openXBackBone({ path: flags.from, store, hosts: flags["old-host"] });
      return withStores([store], open, who, { privacy: flags.privacy, dryRun: flags["dry-run"] });
    },
  );

const sharexCommand = (): Command => ({
  ...command(
    "import sharex-history",
    "--user U HISTORY.json [--files DIR] [--old-host H[,H2]] [--privacy P] [--dry-run]",
    {
      user: value("a username or user id"),
      history: z.string({ error: needs("the History.json file") }).min(1, "needs a value (the History.json file)"),
      files: value("the folder holding ShareX's files").optional(),
      "old-host": hosts.optional(),
      privacy,
      "dry-run": toggle,
    },
    async (flags) => {
      const who = await owners({ user: flags.user });
      if (who.kind !== "user") throw new DomainError("internal", "unreachable");
      const source = await openShareXHistory({
        path: flags.history,
        files: flags.files ?? null,
        hosts: flags["old-host"] ?? [],
        scope: who.account.id,
      });
      return run(source, who, { privacy: flags.privacy, dryRun: flags["dry-run"] });
    },
  ),
  positional: "history",
});

export function importCommands(): Command[] {
  return [ziplineCommand(), chibisafeCommand(), xbackboneCommand(), sharexCommand()];
}
