/** `media tools` (docs/media.md, "Binaries"): which ffmpeg runs, so an operator can check that security updates reached it. */
import { describeMediaTools } from "@/lib/media/tools";
import { type Command, command } from "./command";

export function mediaCommands(): Command[] {
  return [{ ...command("media tools", "", {}, async () => ({ ...(await describeMediaTools()) })), migrates: false }];
}
