/**
 * Fixture accounts on a test server's database, made in the test's own process through the
 * domain functions the admin CLI's `user create`, `app create` and `session create` call
 * (lib/users/accounts.ts, lib/apps/apps.ts, lib/sessions/sessions.ts).
 *
 * Why not the CLI: each call is a process that loads the whole CLI bundle and compiles its
 * Prisma queries, about 1.9 s of CPU; tests that made two or three accounts per test spent
 * most of their time there (docs/development.md, "Test time"). Tests about the CLI itself
 * still run it (`adminCli` in ./server.ts). The server is another process either way, as it
 * is for the CLI: it sees these rows as it sees the CLI's.
 */
import type { Db } from "@/lib/db/client";
import type { Plan } from "@/lib/plans";
import type { TestServer } from "./server";

/** One client per server database, opened on first use and kept for the test file's life. */
const clients = new Map<string, Db>();
/** Calls run one at a time: each makes the server's client the process-wide `db()` while it runs. */
let queue: Promise<unknown> = Promise.resolve();

export async function onServerDatabase<T>(server: Pick<TestServer, "env">, work: () => Promise<T>): Promise<T> {
  const { createDb, setDb } = await import("@/lib/db/client");
  const { databaseConfig } = await import("@/lib/db/config");
  const config = databaseConfig(server.env);
  const run = async (): Promise<T> => {
    let client = clients.get(config.url);
    if (!client) {
      client = createDb(config);
      clients.set(config.url, client);
    }
    // The file's own test database, if it has one, comes back afterwards. Read from where
    // lib/db/client.ts keeps it: its db() would open the default database when none is set.
    const previous = (globalThis as { __mediahostDb?: Db }).__mediahostDb;
    setDb(client);
    try {
      return await work();
    } finally {
      setDb(previous);
    }
  };
  const result = queue.then(run, run);
  queue = result.catch(() => undefined);
  return result;
}

export interface ServerAccount {
  id: string;
  username: string;
  plan: Plan;
}

/** `user create --username U [--plan P]`, in-process. */
export async function serverUser(server: Pick<TestServer, "env">, username: string, plan: Plan = "free"): Promise<ServerAccount> {
  const { createUser } = await import("@/lib/users/accounts");
  return onServerDatabase(server, async () => {
    const user = await createUser({ username, plan });
    return { id: user.id, username: user.displayUsername, plan: user.plan };
  });
}

/** `app create --user U --name N [--gallery-access]`, in-process: the app's id and api-key. */
export async function serverApp(
  server: Pick<TestServer, "env">,
  user: string,
  name: string,
  options: { galleryAccess?: boolean } = {},
): Promise<{ id: string; key: string }> {
  const { requireUser } = await import("@/lib/users/accounts");
  const { createApp } = await import("@/lib/apps/apps");
  return onServerDatabase(server, async () => {
    const owner = await requireUser(user);
    const { app, key } = await createApp({ userId: owner.id, name, galleryAccess: options.galleryAccess ?? false });
    return { id: app.id, key };
  });
}

/** `session create --user U`, in-process: the session's id and relay-key. */
export async function serverSession(server: Pick<TestServer, "env">, user: string): Promise<{ id: string; key: string }> {
  const { requireUser } = await import("@/lib/users/accounts");
  const { createSession } = await import("@/lib/sessions/sessions");
  return onServerDatabase(server, async () => {
    const owner = await requireUser(user);
    const session = await createSession({ userId: owner.id, name: "Admin CLI" });
    return { id: session.id, key: session.key };
  });
}

/** What `/admin/settings` and `admin settings set` do (lib/settings/change.ts), in-process on the server's database. */
export async function serverSetting(server: Pick<TestServer, "env">, name: string, value: string | null): Promise<void> {
  const { changeSetting } = await import("@/lib/settings/change");
  await onServerDatabase(server, () => changeSetting({ source: "web", userId: null, name: "test operator" }, name, value));
}
