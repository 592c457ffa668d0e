/** Request bodies of deliveries (docs/webhooks.md, "Payloads"). */
import type { z } from "zod";
import type { Post } from "@/lib/presenters/posts";

type PostObject = z.infer<typeof Post>;

export interface DeletedPost {
  code: string;
  title: string | null;
  privacy: string;
  created_at: string;
  file_count: number;
}

export type EventData =
  | { post: PostObject }
  | { post: DeletedPost }
  | { post: PostObject; moderation: { action: "moderated" | "released" | "restricted"; moderated: boolean; restricted: boolean } }
  | { post: PostObject; comment: { id: string; body: string; created_at: string; author: { id: string; username: string } } }
  | { message: string }
  | { folder: GuestFolder; posts: PostObject[] };

/** The folder a guest uploaded into (event folder.guest_upload, docs/guest-uploads.md). */
export interface GuestFolder {
  id: string;
  code: string;
  name: string;
}

export interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  data: EventData;
}

export function webhookBody(format: string, event: Envelope): string {
  if (format === "discord") return JSON.stringify(discordBody(event));
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, data: event.data });
}

const COLORS: Record<string, number> = {
  upload: 0x4f46e5,
  "post.deleted": 0x71717a,
  "post.moderated": 0xdc2626,
  "comment.received": 0x059669,
  "folder.guest_upload": 0xd97706,
  ping: 0x0ea5e9,
};

export interface DiscordBody {
  content?: string;
  username: string;
  allowed_mentions: { parse: never[] };
  embeds: {
    title: string;
    url?: string;
    description?: string;
    color: number;
    timestamp: string;
    image?: { url: string };
    footer: { text: string };
  }[];
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function discordBody(event: Envelope): DiscordBody {
  const data = event.data;
  const base = { color: COLORS[event.type] ?? 0x4f46e5, timestamp: event.createdAt, footer: { text: `Mediahost · ${event.type}` } };
  // Mentions in titles or comments must never ping anyone on the receiving server.
  const common = { username: "Mediahost", allowed_mentions: { parse: [] as never[] } };
  if ("message" in data) return { ...common, embeds: [{ ...base, title: "Webhook test", description: clip(data.message, 2000) }] };
  if ("folder" in data) {
    const files = data.posts.length === 1 ? "1 file" : `${data.posts.length} files`;
    return { ...common, embeds: [{ ...base, title: clip(`A guest uploaded ${files} to ${data.folder.name}`, 256) }] };
  }
  const post = data.post;
  const name = post.title || post.code;
  if (!("url" in post)) {
    return { ...common, embeds: [{ ...base, title: clip(`Post deleted: ${name}`, 256) }] };
  }
  const first = post.files[0];
  const isVideo = first?.mime_type.startsWith("video/") ?? false;
  const image = first && !isVideo ? first.url : (first?.thumbnail_url ?? undefined);
  const embed = { ...base, url: post.url, ...(image ? { image: { url: image } } : {}) };
  if ("comment" in data) {
    return {
      ...common,
      embeds: [
        {
          ...embed,
          title: clip(`New comment on ${name}`, 256),
          description: clip(`**${data.comment.author.username}**: ${data.comment.body}`, 4000),
        },
      ],
    };
  }
  if ("moderation" in data) {
    return { ...common, embeds: [{ ...embed, title: clip(`Post ${data.moderation.action}: ${name}`, 256) }] };
  }
  // A video: the link in `content` lets Discord unfurl the share page's player.
  return {
    ...common,
    ...(isVideo ? { content: post.url } : {}),
    embeds: [
      { ...embed, title: clip(`New upload: ${name}`, 256), ...(post.description ? { description: clip(post.description, 4000) } : {}) },
    ],
  };
}
