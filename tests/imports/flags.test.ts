/** The import commands' refusals (docs/migrate.md): bad flags and unreadable sources are invalid_request, never a crash. */
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runAdmin } from "@/lib/cli/admin";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser } from "../support/fixtures";
import { useScratchDir } from "../support/media";

useTestDatabase();
useCounterStore();
const scratch = useScratchDir();

const run = async (...argv: string[]) =>
  (await runAdmin(argv, { log: () => {} })) as { exitCode: number; output: { error?: { type: string; message: string } } };

describe("import command refusals", () => {
  it.each([
    [["import", "zipline", "--uploads", "/x", "--old-host", "a.example", "--user", "u"], /--from is required/],
    [["import", "zipline", "--from", "postgresql://x/y", "--uploads", "/x", "--old-host", "not a host!", "--user", "u"], /not a host name/],
    [
      ["import", "chibisafe", "--from", "/x.sqlite", "--uploads", "/x", "--old-host", "a.example", "--map-users", "alice"],
      /neither auto nor old=new/,
    ],
    [
      ["import", "xbackbone", "--from", "/x.db", "--storage", "/x", "--old-host", "a.example", "--user", "u", "--map-users", "auto"],
      /not both/,
    ],
    [["import", "xbackbone", "--from", "/x.db", "--storage", "/x", "--old-host", "a.example"], /--user U .* or --map-users/],
    [["import", "sharex-history", "--user", "u"], /--history is required/],
  ])("%j is refused", async (argv, message) => {
    const out = await run(...argv);
    expect(out.exitCode).toBe(1);
    expect(out.output.error?.type).toBe("invalid_request");
    expect(out.output.error?.message).toMatch(message);
  });

  it("names a source it cannot read or that is not the peer's", async () => {
    const user = await createTestUser();
    const notChibi = scratch("other.sqlite");
    new Database(notChibi).exec("CREATE TABLE files (id INTEGER PRIMARY KEY)").close();
    const wrong = await run(
      "import",
      "chibisafe",
      "--from",
      notChibi,
      "--uploads",
      "/x",
      "--old-host",
      "a.example",
      "--user",
      user.username,
    );
    expect(wrong.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/No Chibisafe v6/) });
    const unreachable = await run(
      "import",
      "zipline",
      "--from",
      "postgresql://nobody@127.0.0.1:1/none",
      "--uploads",
      "/x",
      "--old-host",
      "a.example",
      "--user",
      user.username,
    );
    expect(unreachable.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/could not be opened/) });
    const history = scratch("History.json");
    const missing = await run("import", "sharex-history", "--user", user.username, `${history}.absent`);
    expect(missing.output.error).toMatchObject({ type: "invalid_request", message: expect.stringMatching(/is not a file/) });
    writeFileSync(history, "");
    const empty = await run("import", "sharex-history", "--user", user.username, history);
    expect(empty.exitCode).toBe(0);
  });
});
