/**
 * The title a card or a share page shows (issue 26 §5): the post's own, else its file's
 * name (an album: the first file's, and how many more). A display fallback only: the API's
 * `title` stays null when none was set (interface.md: "string or null").
 */
export interface TitledPost {
  title: string | null;
  file_count?: number;
  files: ReadonlyArray<{ name: string }>;
}

export function displayTitle(post: TitledPost): string {
  if (post.title) return post.title;
  const first = post.files[0]?.name;
  if (!first) return "Post";
  const more = (post.file_count ?? post.files.length) - 1;
  return more > 0 ? `${first} + ${more} more` : first;
}
