/**
 * What an admin CLI command is, and how one is made from its flag schema (commands.ts and
 * the command groups beside it build theirs with `command`).
 */
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import type { FlagValue } from "./argv";

/** What a command prints: one JSON object. */
export type CommandOutput = Readonly<Record<string, unknown>>;

export interface Command {
  /** The command words, e.g. "team member add". */
  name: string;
  /** One line of help: the name and its flags. */
  usage: string;
  /** Validates the raw flags (no database access) and returns the work to do. */
  prepare(flags: Record<string, FlagValue>): () => Promise<CommandOutput>;
  /** False for commands that must see the database as it is (backups): no migrations first. */
  migrates?: boolean;
  /**
   * The flags bare arguments fill, in order (`import dir ... PATH` sets `path`, `settings set
   * NAME VALUE` sets `name` and `value`); other commands refuse bare arguments.
   */
  positional?: string | readonly string[];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `Unknown flag${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `--${k}`).join(", ")}.`;
  }
  return issue.path.length ? `--${String(issue.path[0])} ${issue.message}.` : `${issue.message}.`;
}

/** Flag problems become one invalid_request naming every problem. */
function parseFlags<S extends z.ZodType>(name: string, schema: S, flags: Record<string, FlagValue>): z.output<S> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const problems = result.error.issues.map(describeIssue).join(" ");
  throw new DomainError("invalid_request", `${name}: ${problems}`);
}

/** A command from its name, usage line, flag schema and work. */
export function command<Shape extends z.ZodRawShape>(
  name: string,
  usage: string,
  shape: Shape,
  run: (flags: z.output<z.ZodObject<Shape>>) => Promise<CommandOutput>,
): Command {
  // strictObject: a misspelt flag is an error, never silently ignored.
  const schema = z.strictObject(shape);
  return {
    name,
    usage: `${name} ${usage}`.trim(),
    prepare(flags) {
      const parsed = parseFlags(name, schema, flags);
      return () => run(parsed);
    },
  };
}
