/** The uploader configs' deletion link: GET never deletes (unfurlers and prefetchers follow every link), POST does. */
import { deletePost } from "@/lib/posts/remove";
import { postForChange } from "@/lib/posts/read";

export interface DeleteTarget {
  code: string;
  title: string | null;
  fileCount: number;
  fileNames: string[];
  createdAt: string;
}

/** The post the owner is asked to confirm; not_found / forbidden / moderated as for any change. */
export async function deleteTarget(userId: string, code: string): Promise<DeleteTarget> {
  const post = await postForChange(code, { userId, teamId: null });
  return {
    code: post.code,
    title: post.title,
    fileCount: post.files.length,
    fileNames: post.files.map((f) => f.name),
    createdAt: post.createdAt.toISOString(),
  };
}

export async function confirmDelete(userId: string, code: string): Promise<void> {
  await deletePost(code, { userId, teamId: null });
}
