/**
 * Handlers of the tags area (lib/routes/table/tags.ts; docs/tags.md) over lib/tags/tags.ts.
 * Personal keys only (tags are a person's; a team key gets 401); app keys need gallery
 * access, as every endpoint that reads or changes the gallery does. Posts get and lose tags
 * through PATCH /posts/{code} (`tags`) and POST /posts/batch (`tag_add`, `tag_remove`).
 */
import { z } from "zod";
import type { RouteContext } from "@/lib/http/route";
import { tagView } from "@/lib/presenters/tags";
import { createTag, deleteTag, listTags, TAG_NAME_MAX_LENGTH, updateTag } from "@/lib/tags/tags";
import { accountOf } from "@/lib/types/principal";
import type { idParam } from "./params";

const name = z
  .string({ error: "name must be a string." })
  .max(TAG_NAME_MAX_LENGTH * 4, `name must be at most ${TAG_NAME_MAX_LENGTH} characters.`)
  .describe(`1 to ${TAG_NAME_MAX_LENGTH} characters, one line; unique per user, any case`);
const color = z.string({ error: "color must be a string." }).max(16, "color must be a hex colour such as #3b82f6.").describe("#rrggbb");

export const createTagBody = z.object({ name, color: color.optional().describe("#rrggbb; default #64748b") });
export const updateTagBody = z
  .object({ name: name.optional(), color: color.optional() })
  .refine((b) => b.name !== undefined || b.color !== undefined, "Send name, color or both.");

type ById = { params: typeof idParam };

export async function handleListTags({ principal }: RouteContext) {
  return { tags: (await listTags(accountOf(principal).id)).map(tagView) };
}

export async function handleCreateTag({ principal, body }: RouteContext<{ body: typeof createTagBody }>) {
  return { tag: tagView(await createTag(accountOf(principal).id, body)) };
}

export async function handleUpdateTag({ principal, params, body }: RouteContext<ById & { body: typeof updateTagBody }>) {
  return { tag: tagView(await updateTag(accountOf(principal).id, params.id, body)) };
}

export async function handleDeleteTag({ principal, params }: RouteContext<ById>) {
  await deleteTag(accountOf(principal).id, params.id);
  return { id: params.id, deleted: true as const };
}
