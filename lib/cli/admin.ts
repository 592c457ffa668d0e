/** The admin CLI without its process concerns (scripts/admin.ts wires argv, stdout and the database); tests call it directly. */
import { settleWebhookEvents } from "@/lib/webhooks/events";
import { listenForPostEvents } from "@/lib/webhooks/post-events";
import { DomainError, errorBody, errorBodyOf, isDomainError } from "@/lib/errors";
import { refreshStoredSettings } from "@/lib/settings/stored";
import { parseArgv, unexpectedArgument } from "./argv";
import { COMMANDS, findCommand, type Command, type CommandOutput } from "./commands";

export interface AdminResult {
  exitCode: 0 | 1;
  output: CommandOutput;
}

export interface AdminOptions {
  /** Runs once the flags are valid, before the database is used (migrations). */
  beforeRun?: () => Promise<unknown>;
  log?: (message: string) => void;
}

const HELP_WORDS = new Set(["help", "--help", "-h"]);

function help(): CommandOutput {
  return { commands: COMMANDS.map((c) => c.usage) };
}

function prepare(argv: readonly string[]): { command: Command; run: () => Promise<CommandOutput> } | null {
  if (argv.length === 0) throw new DomainError("invalid_request", "No command given; run 'help' for the list.");
  if (HELP_WORDS.has(argv[0])) return null;
  const { words, flags, rest } = parseArgv(argv, { allowRest: true });
  // A positional argument may sit among the leading words: the longest command name wins.
  let command = findCommand(words);
  let extra: string[] = [];
  for (let n = words.length - 1; !command && n >= 1; n--) {
    const candidate = findCommand(words.slice(0, n));
    if (candidate?.positional) [command, extra] = [candidate, words.slice(n)];
  }
  if (!command) {
    const known = [...new Set(COMMANDS.map((c) => c.name.split(" ")[0]))].join(", ");
    const given = words.join(" ") || "(none)";
    throw new DomainError("invalid_request", `Unknown command '${given}'. Nouns: ${known}; run 'help' for the full list.`);
  }
  const positionals = [...extra, ...rest];
  const slots = command.positional === undefined ? [] : typeof command.positional === "string" ? [command.positional] : command.positional;
  if (positionals.length > slots.length) throw unexpectedArgument(positionals[slots.length]);
  positionals.forEach((value, i) => {
    if (Object.hasOwn(flags, slots[i])) throw new DomainError("invalid_request", `${slots[i].toUpperCase()} is given twice.`);
    flags[slots[i]] = value;
  });
  return { command, run: command.prepare(flags) };
}

function errorOutput(error: unknown, log: (message: string) => void): CommandOutput {
  // Context fields sit next to type and message, as in HTTP answers (lib/errors.ts).
  if (isDomainError(error)) return errorBodyOf(error);
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  const message = error instanceof Error ? error.message.replace(/\s+/g, " ").trim() : String(error);
  return errorBody("internal", message || "Unexpected failure.");
}

export async function runAdmin(argv: readonly string[], options: AdminOptions = {}): Promise<AdminResult> {
  const log = options.log ?? ((message: string) => console.error(message));
  try {
    const prepared = prepare(argv);
    if (!prepared) return { exitCode: 0, output: help() };
    if (prepared.command.migrates !== false) {
      await options.beforeRun?.();
      // The operator's stored settings (file kinds, limits) apply to the CLI as to the server.
      await refreshStoredSettings(log);
    }
    // Posts a command changes (post moderate, post delete) tell the webhooks, as in the server.
    listenForPostEvents();
    const output = await prepared.run();
    // Events a command emitted (post moderate, post delete) reach the queue before the process exits.
    await settleWebhookEvents();
    return { exitCode: 0, output };
  } catch (error) {
    return { exitCode: 1, output: errorOutput(error, log) };
  }
}
