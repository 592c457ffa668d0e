/** The caller's folders (GET /api/folders, docs/folders.md), shared by the folders page and the gallery. */
import { useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import type { Folder as FolderSchema } from "@/lib/presenters/folders";
import { api } from "./api";

export type Folder = z.output<typeof FolderSchema>;

export function useFolders() {
  return useQuery({
    queryKey: ["folders"],
    queryFn: async ({ signal }) => (await api<{ folders: Folder[] }>("/api/folders", { signal })).folders,
  });
}
