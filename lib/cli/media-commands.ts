/**
 * `media tools`: which ffmpeg and ffprobe the service runs on uploads, and their versions
 * (docs/media.md, "Binaries"), so an operator can check that security updates reached it.
 * Reads no database.
 */
import { describeMediaTools } from "@/lib/media/tools";
import { type Command, command } from "./command";

/** Listed in commands.ts's table. */
export function mediaCommands(): Command[] {
  return [{ ...command("media tools", "", {}, async () => ({ ...(await describeMediaTools()) })), migrates: false }];
}
