/** The caller's tags (GET /api/tags, docs/tags.md), shared by the tags page, the gallery's filters, tiles and editor. */
import { useQuery } from "@tanstack/react-query";
import type { Tag as TagSchema, TagList } from "@/lib/presenters/tags";
import { api, type Reply } from "./api";

export type Tag = Reply<typeof TagSchema>;

export function useTags() {
  return useQuery({
    queryKey: ["tags"],
    queryFn: async ({ signal }) => (await api<Reply<typeof TagList>>("/api/tags", { signal })).tags,
  });
}
