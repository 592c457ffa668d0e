/** The tag object (docs/tags.md) with the view that builds it from lib/tags records. */
import { z } from "zod";
import type { TagRecord } from "@/lib/tags/tags";

export const Tag = z
  .object({
    id: z.string(),
    name: z.string(),
    color: z.string().describe("#rrggbb"),
    post_count: z.number().int().describe("The caller's posts carrying the tag"),
    created_at: z.string(),
  })
  .meta({ id: "Tag" });

export const TagReply = z.object({ tag: Tag });
export const TagList = z.object({ tags: z.array(Tag) });

export function tagView(t: TagRecord): z.input<typeof Tag> {
  return { id: t.id, name: t.name, color: t.color, post_count: t.postCount, created_at: t.createdAt.toISOString() };
}
