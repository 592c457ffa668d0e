/** What an admin CLI command is, and how one is made from its flag schema. */
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import type { FlagValue } from "./argv";

export type CommandOutput = Readonly<Record<string, unknown>>;

export interface Command {
  name: string;
  usage: string;
  /** Validates the raw flags (no database access) and returns the work. */
  prepare(flags: Record<string, FlagValue>): () => Promise<CommandOutput>;
  /** False for commands that must see the database as it is (backups): no migrations first. */
  migrates?: boolean;
  /** The flags bare arguments fill, in order; other commands refuse bare arguments. */
  positional?: string | readonly string[];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `Unknown flag${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `--${k}`).join(", ")}.`;
  }
  return issue.path.length ? `--${String(issue.path[0])} ${issue.message}.` : `${issue.message}.`;
}

function parseFlags<S extends z.ZodType>(name: string, schema: S, flags: Record<string, FlagValue>): z.output<S> {
  const result = schema.safeParse(flags);
  if (result.success) return result.data;
  const problems = result.error.issues.map(describeIssue).join(" ");
  throw new DomainError("invalid_request", `${name}: ${problems}`);
}

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
