/** The caller's folders (GET /api/folders, docs/folders.md), shared by the folders page and the gallery. */
import { useQuery } from "@tanstack/react-query";
import type { Folder as FolderSchema, FolderList } from "@/lib/presenters/folders";
import { api, type Reply } from "./api";

export type Folder = Reply<typeof FolderSchema>;

export function useFolders() {
  return useQuery({
    queryKey: ["folders"],
    queryFn: async ({ signal }) => (await api<Reply<typeof FolderList>>("/api/folders", { signal })).folders,
  });
}
