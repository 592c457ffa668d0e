/** Splits the admin CLI's arguments into the command words and raw flags; each command's schema gives them meaning. */
import { DomainError } from "@/lib/errors";

export type FlagValue = string | true;

export interface ParsedArgv {
  words: string[];
  flags: Record<string, FlagValue>;
  /** With `allowRest`; otherwise an error. */
  rest: string[];
}

export const unexpectedArgument = (token: string) =>
  new DomainError("invalid_request", `Unexpected argument '${token}': values follow a --flag.`);

const FLAG_NAME = /^[a-z][a-z0-9-]*$/;

/** A value starting with `--` needs the `=` form; a repeated flag or a stray word is an error rather than a guess. */
export function parseArgv(argv: readonly string[], options: { allowRest?: boolean } = {}): ParsedArgv {
  const words: string[] = [];
  const rest: string[] = [];
  const flags: Record<string, FlagValue> = {};
  let i = 0;
  while (i < argv.length && !argv[i].startsWith("--")) words.push(argv[i++]);

  while (i < argv.length) {
    const token = argv[i++];
    if (!token.startsWith("--")) {
      if (!options.allowRest) throw unexpectedArgument(token);
      rest.push(token);
      continue;
    }
    const eq = token.indexOf("=");
    const name = (eq === -1 ? token.slice(2) : token.slice(2, eq)).toLowerCase();
    if (!FLAG_NAME.test(name)) throw new DomainError("invalid_request", `'${token}' is not a valid flag.`);
    if (Object.hasOwn(flags, name)) throw new DomainError("invalid_request", `--${name} is given more than once.`);

    let value: FlagValue = true;
    if (eq !== -1) value = token.slice(eq + 1);
    else if (i < argv.length && !argv[i].startsWith("--")) value = argv[i++];
    flags[name] = value;
  }
  return { words, flags, rest };
}
