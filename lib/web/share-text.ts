/** A text post's files (docs/pastes.md), highlighted on the server so reading needs no script. */
import { cache } from "react";
import type { PostRecord } from "@/lib/posts/read";
import { storage } from "@/lib/storage";
import { decodeText, TEXT_MAX_BYTES } from "@/lib/uploads/file-kind";
import { firstLines, highlightToHtml } from "@/lib/text/highlight";

export interface ShareText {
  name: string;
  language: string;
  lineCount: number;
  /** Shiki escapes the text. */
  html: string;
  preview: string;
}

async function readText(storageKey: string): Promise<string | null> {
  const object = await storage().open(storageKey);
  if (!object) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of object.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Uploads are at most 2 MiB; anything larger was not stored by this rule.
    if (size > TEXT_MAX_BYTES) {
      object.body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return decodeText(Buffer.concat(chunks, size));
}

export const shareTexts = cache(async (record: PostRecord): Promise<ShareText[]> => {
  const texts: ShareText[] = [];
  for (const file of record.files) {
    if (file.kind !== "text") continue;
    const text = (await readText(file.storageKey)) ?? "";
    const language = file.language ?? "text";
    const { html } = await highlightToHtml(text, language);
    texts.push({
      name: file.name,
      language,
      lineCount: text ? text.replace(/\n$/, "").split("\n").length : 0,
      html,
      preview: firstLines(text),
    });
  }
  return texts;
});
