/** A command's own answer that still exits 1 (a backup that fails `backup verify`). */
import type { CommandOutput } from "./commands";

export class FailedCommand extends Error {
  constructor(readonly output: CommandOutput) {
    super("command failed");
    this.name = "FailedCommand";
  }
}
