/** The CLI's first-hour commands (docs/admin-cli.md): settings (audited like the console), the set-up code, `user list`. */
import { z } from "zod";
import { setupCode, setupPending } from "@/lib/accounts/setup";
import { listUsers, type AdminUserRow } from "@/lib/admin/users";
import { ROLES } from "@/lib/admin/roles";
import { cliActor } from "@/lib/audit/log";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";
import { PLANS } from "@/lib/plans";
import { changeSetting, getSetting, listSettings, type SettingState } from "@/lib/settings/change";
import { type Command, type CommandOutput, command } from "./command";

const name = z
  .string({ error: (issue) => (issue.input === undefined ? "is required (a setting's name, such as UPLOAD_FILES)" : "needs a value") })
  .trim()
  .min(1, "needs a value (a setting's name)");

function settingJson(state: SettingState): CommandOutput {
  const { declaration } = state;
  return {
    name: declaration.name,
    section: declaration.section,
    value: declaration.secret ? (state.isSet ? "(secret)" : null) : (state.value ?? declaration.defaultText),
    source: state.source,
    locked: state.locked,
    runtime: declaration.runtime,
    default: declaration.defaultText,
    updated_at: state.updatedAt?.toISOString() ?? null,
    updated_by: state.updatedBy,
  };
}

const oneOf = <const T extends string>(values: readonly T[]) =>
  z.enum(values as readonly [T, ...T[]], { error: `must be one of ${values.join(", ")}` });

const limit = z
  .string()
  .regex(/^\d+$/, "must be a whole number from 1 to 1000")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 1000, "must be from 1 to 1000")
  .optional();

/** `<ms>.<id>`. */
const after = z
  .string()
  .regex(/^\d+\.[A-Za-z0-9_-]+$/, "must be the next value of a previous page")
  .transform((v) => ({ t: Number(v.slice(0, v.indexOf("."))), id: v.slice(v.indexOf(".") + 1) }))
  .optional();

const userJson = (u: AdminUserRow): CommandOutput => ({
  id: u.id,
  username: u.username,
  email: u.email,
  role: u.role,
  plan: u.plan,
  suspended: u.suspended,
  uploads: u.uploadCount,
  created_at: u.createdAt.toISOString(),
});

export function settingsCommands(): Command[] {
  return [
    command("settings list", "", {}, async () => ({ settings: (await listSettings()).map(settingJson) })),
    { ...command("settings get", "NAME", { name }, async (flags) => settingJson(await getSetting(flags.name))), positional: "name" },
    {
      ...command(
        "settings set",
        'NAME VALUE ("" puts it back to its default)',
        { name, value: z.string({ error: 'is required (use "" for the default)' }) },
        async (flags) => {
          await changeSetting(cliActor(), flags.name, flags.value);
          return settingJson(await getSetting(flags.name));
        },
      ),
      positional: ["name", "value"],
    },
    command("setup-code", "", {}, async () => {
      if (!(await setupPending())) throw new DomainError("not_found", "This instance already has an administrator: /setup is closed.");
      return { setup_code: setupCode(), url: `${env().PUBLIC_URL}/setup` };
    }),
    command(
      "user list",
      "[--role user|admin] [--suspended true|false] [--plan free|plus|ultra] [--limit N] [--after NEXT]",
      {
        role: oneOf(ROLES).optional(),
        suspended: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
        plan: oneOf(PLANS).optional(),
        limit,
        after,
      },
      async (flags) => {
        const page = await listUsers({
          role: flags.role,
          suspended: flags.suspended === undefined ? undefined : flags.suspended === "true",
          plan: flags.plan,
          limit: flags.limit ?? 100,
          after: flags.after,
        });
        return { users: page.items.map(userJson), next: page.next ? `${page.next.t}.${page.next.id}` : null };
      },
    ),
  ];
}
