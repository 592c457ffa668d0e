/**
 * `media tools`: which ffmpeg and ffprobe the service runs on uploads, and their versions
 * (docs/media.md, "Binaries"), so an operator can check that security updates reached it.
 * Reads no database.
 */
import { describeMediaTools } from "../media/tools";
import type { Command, DefineCommand } from "./commands";

/** Registered in commands.ts's table, which passes its `command` helper (no import cycle). */
export function mediaCommands(define: DefineCommand): Command[] {
  return [{ ...define("media tools", "", {}, async () => ({ ...(await describeMediaTools()) })), migrates: false }];
}
