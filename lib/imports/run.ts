/**
 * `admin import` (docs/migrate.md): a peer's accounts, files and short links brought in once each,
 * so an interrupted run continues where it stopped and a second run changes nothing.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { issueResetLink } from "@/lib/auth/passwords";
import { DomainError, isDomainError } from "@/lib/errors";
import type { Plan } from "@/lib/plans";
import type { Privacy } from "@/lib/posts/privacy";
import { uploaderFor, type Uploader } from "@/lib/uploads/uploader";
import { createUser, findUserByRef, usernameProblem, type Account } from "@/lib/users/accounts";
import type { ImportSource, OldPath, SourceFile, SourceLink, SourceUser } from "./source";
import { SpillList } from "./spill";
import { alreadyImported, importedAccount, recordAccount, recordHosts, storeFile, storeLink } from "./store";

/** Whose gallery the items go to: one account, or the peer's users mapped (or made: `auto`). */
export type Owners = { kind: "user"; account: Account } | { kind: "map"; auto: boolean; map: ReadonlyMap<string, string>; plan: Plan };

export interface ImportRunOptions {
  owners: Owners;
  privacy: Privacy;
  dryRun: boolean;
  progress: (line: string) => void;
  progressEveryMs?: number;
}

export interface ImportRunSummary {
  source: string;
  dryRun: boolean;
  files: { imported: number; wouldImport: number; already: number; bytes: number };
  links: { imported: number; wouldImport: number; already: number };
  users: { username: string; peerUsername: string; id: string | null; created: boolean; resetLink: string | null; note: string | null }[];
  skipped: SpillList<{ item: string; reason: string }>;
  clashes: SpillList<string>;
}

/** Items between two full collections (below). */
const COLLECT_EVERY = 200;

/**
 * A full collection every COLLECT_EVERY items: V8 let garbage pile up far past the one live page
 * (20 000 files peaked at 337 MB RSS without this). It frees garbage only; the live set is on the
 * progress line, so growth would be seen.
 */
const collect: (() => void) | null = (() => {
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return null;
  }
})();

let liveHeapMb: number | null = null;

function collectNow(): void {
  if (!collect) return;
  collect();
  liveHeapMb = process.memoryUsage().heapUsed / 1048576;
}

const reasonOf = (error: unknown): string => (isDomainError(error) ? `${error.type}: ${error.message}` : String(error));

class Run {
  readonly summary: ImportRunSummary;
  private readonly uploaders = new Map<string, Uploader | string>();
  private readonly started = Date.now();
  private lastLine = 0;
  private seen = 0;

  constructor(
    readonly source: ImportSource,
    readonly options: ImportRunOptions,
  ) {
    this.summary = {
      source: source.id,
      dryRun: options.dryRun,
      files: { imported: 0, wouldImport: 0, already: 0, bytes: 0 },
      links: { imported: 0, wouldImport: 0, already: 0 },
      users: [],
      skipped: new SpillList(),
      clashes: new SpillList(),
    };
  }

  skip(item: string, reason: string): void {
    this.summary.skipped.push({ item, reason });
    this.options.progress(`${item}: skipped (${reason})`);
  }

  tick(force = false): void {
    if (!force && ++this.seen % COLLECT_EVERY === 0) collectNow();
    const now = Date.now();
    if (!force && now - this.lastLine < (this.options.progressEveryMs ?? 1000)) return;
    this.lastLine = now;
    const s = this.summary;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const mb = s.files.bytes / 1048576;
    this.options.progress(
      `[${this.seen} items] files ${s.files.imported + s.files.wouldImport} ${s.dryRun ? "to import" : "imported"}, ` +
        `${s.files.already} already, links ${s.links.imported + s.links.wouldImport}, ${s.skipped.length} skipped, ` +
        `${mb.toFixed(1)} MB, ${(this.seen / seconds).toFixed(1)} items/s, ${(mb / seconds).toFixed(2)} MB/s, ` +
        `RSS ${(process.memoryUsage.rss() / 1048576).toFixed(0)} MB` +
        (liveHeapMb === null ? "" : `, live heap ${liveHeapMb.toFixed(0)} MB`),
    );
  }

  /** Every peer user resolved first: files then only look up the map. */
  async resolveUsers(): Promise<void> {
    const { owners } = this.options;
    for await (const user of this.source.users()) {
      if (owners.kind === "user") continue;
      const mapped = owners.map.get(user.username.toLowerCase());
      if (mapped) {
        const account = await findUserByRef(mapped);
        if (!account) {
          this.uploaders.set(user.key, `--map-users names ${mapped}, who is not an account here`);
          continue;
        }
        this.useAccount(user.key, account);
        this.summary.users.push(this.userLine(user, account, false, null));
      } else if (owners.auto) await this.autoAccount(user, owners.plan);
      else this.uploaders.set(user.key, `${user.username} is not in --map-users`);
    }
  }

  private userLine(user: SourceUser, account: Account | null, created: boolean, note: string | null) {
    return {
      username: account?.displayUsername ?? user.username,
      peerUsername: user.username,
      id: account?.id ?? null,
      created,
      resetLink: null as string | null,
      note,
    };
  }

  private useAccount(key: string, account: Account): void {
    if (account.suspended) {
      this.uploaders.set(key, `${account.displayUsername} is suspended`);
      return;
    }
    const base = uploaderFor({
      kind: "session",
      user: { id: account.id, username: account.displayUsername, plan: account.plan, suspended: false, quotaOverride: null },
      sessionId: "admin-import",
    });
    // An operator's migration is not a week's uploads: the weekly quota does not apply (the per-file limit does).
    this.uploaders.set(key, { ...base, account: { ...base.account, quota: Number.MAX_SAFE_INTEGER } });
  }

  private async autoAccount(user: SourceUser, plan: Plan): Promise<void> {
    const earlier = await importedAccount(this.source.id, `user:${user.key}`);
    const account = earlier ? await findUserByRef(earlier) : null;
    if (account) {
      this.useAccount(user.key, account);
      this.summary.users.push(this.userLine(user, account, false, "made by an earlier run"));
      return;
    }
    const problem = usernameProblem(user.username);
    const refuse = (why: string) => {
      this.uploaders.set(user.key, why);
      this.summary.users.push(this.userLine(user, null, false, why));
      this.skip(`user ${user.username}`, `${why}; map it with --map-users ${user.username}=NAME`);
    };
    if (problem) return refuse(`not a valid username here (${problem})`);
    if (await findUserByRef(user.username)) return refuse("the username is taken here");
    if (this.options.dryRun) {
      this.summary.users.push(this.userLine(user, null, false, "would be made"));
      this.uploaders.set(user.key, "dry run");
      return;
    }
    const made = await createUser({ username: user.username, plan });
    await recordAccount(this.source.id, `user:${user.key}`, made.id);
    this.useAccount(user.key, made);
    const line = this.userLine(user, made, true, user.passwordScheme ? `password (${user.passwordScheme}) not carried over` : null);
    this.summary.users.push(line);
  }

  private readonly hosts = new Set<string>();

  private async noteHosts(paths: readonly OldPath[]): Promise<void> {
    const fresh = [...new Set(paths.map((p) => p.host))].filter((h) => !this.hosts.has(h));
    if (!fresh.length) return;
    await recordHosts(this.source.id, fresh);
    for (const host of fresh) this.hosts.add(host);
  }

  owner(ownerKey: string | null): Uploader | string {
    const { owners } = this.options;
    if (owners.kind === "user") {
      const key = `user:${owners.account.id}`;
      if (!this.uploaders.has(key)) this.useAccount(key, owners.account);
      return this.uploaders.get(key)!;
    }
    if (ownerKey === null) return "the file has no owner on the peer; import it with --user";
    return this.uploaders.get(ownerKey) ?? "the owner is not among the peer's users";
  }

  async file(file: SourceFile): Promise<void> {
    const item = `file ${file.key} (${file.name})`;
    try {
      if (await alreadyImported(this.source.id, file.key)) {
        this.summary.files.already++;
        return;
      }
      if (file.problem) return this.skip(item, file.problem);
      const owner = this.owner(file.ownerKey);
      // A dry run's account that a real run would make: the checks below still apply.
      const pending = this.options.dryRun && owner === "dry run";
      if (typeof owner === "string" && !pending) return this.skip(item, owner);
      if (file.expiresAt && file.expiresAt.getTime() <= Date.now()) return this.skip(item, "expired on the peer");
      if (file.maxViews !== null && file.views >= file.maxViews) return this.skip(item, "its view limit was reached on the peer");
      if (!file.file) return this.skip(item, "the peer names no file");
      const size = await file.file.size();
      if (size === null) return this.skip(item, `missing ${file.file.where} (${file.file.name})`);
      const limit = typeof owner === "string" ? Number.POSITIVE_INFINITY : owner.limits.uploadFileBytes;
      if (size > limit) return this.skip(item, `file_too_large: over the plan's ${limit} bytes per file`);
      if (this.options.dryRun || typeof owner === "string") {
        this.summary.files.wouldImport++;
        this.summary.files.bytes += size;
        return;
      }
      const stored = await storeFile(this.source.id, owner, { ...file, file: file.file, size }, this.options.privacy);
      await this.noteHosts(file.oldPaths);
      if (stored.folderProblem)
        this.skip(`folder of ${item}`, `imported as ${stored.code}, not put in its folder: ${stored.folderProblem}`);
      this.summary.files.imported++;
      this.summary.files.bytes += size;
      for (const clash of stored.clashes) this.summary.clashes.push(clash);
    } catch (error) {
      this.skip(item, reasonOf(error));
    } finally {
      this.tick();
    }
  }

  async link(link: SourceLink): Promise<void> {
    const item = `link ${link.key} (${link.codeHint ?? link.destination})`;
    try {
      if (await alreadyImported(this.source.id, link.key)) {
        this.summary.links.already++;
        return;
      }
      const owner = this.owner(link.ownerKey);
      if (typeof owner === "string" && !(this.options.dryRun && owner === "dry run")) return this.skip(item, owner);
      if (link.passwordProtected) return this.skip(item, "password-protected on the peer: its hash cannot be checked here");
      if (link.maxClicks !== null && link.clicks >= link.maxClicks) return this.skip(item, "its click limit was reached on the peer");
      if (this.options.dryRun) {
        this.summary.links.wouldImport++;
        return;
      }
      const stored = await storeLink(this.source.id, (owner as Uploader).userId, link);
      await this.noteHosts(link.oldPaths);
      this.summary.links.imported++;
      for (const clash of stored.clashes) this.summary.clashes.push(clash);
    } catch (error) {
      this.skip(item, reasonOf(error));
    } finally {
      this.tick();
    }
  }

  /** Issued last, so each reset link is fresh when the operator reads it. */
  async resetLinks(): Promise<void> {
    for (const user of this.summary.users) {
      if (user.created && user.id) user.resetLink = (await issueResetLink(user.id, null)).url;
    }
  }
}

export async function runImport(source: ImportSource, options: ImportRunOptions): Promise<ImportRunSummary> {
  if (options.owners.kind === "user" && options.owners.account.suspended) {
    throw new DomainError("suspended", `${options.owners.account.displayUsername} is suspended.`);
  }
  const run = new Run(source, options);
  options.progress(`${source.id}: ${await source.describe()}${options.dryRun ? " (dry run: nothing is changed)" : ""}`);
  if (!options.dryRun) await recordHosts(source.id, source.hosts);
  await run.resolveUsers();
  for await (const file of source.files()) await run.file(file);
  for await (const link of source.links()) await run.link(link);
  if (!options.dryRun) await run.resetLinks();
  run.tick(true);
  return run.summary;
}
