/**
 * The rate limits as data (docs/rate-limits.md; shown in the OpenAPI documents as
 * `x-rate-limit`). Endpoints share a bucket where the spec shares the limit. "user" buckets
 * count per account (a team key per team), "ip" buckets per client address.
 */
import type { Principal } from "@/lib/types/principal";
import { env } from "@/lib/config/env";
import type { CounterStore, WindowResult } from "./store";

export type BucketScope = "user" | "ip";

export interface Bucket {
  limit: number;
  windowSeconds: number;
  scope: BucketScope;
}

const perUser = (limit: number, windowSeconds: number) => ({ limit, windowSeconds, scope: "user" }) as const;

export const BUCKETS = {
  posts_get: perUser(20, 30), // GET /posts/{code}
  upload: perUser(20, 30), // POST /upload
  posts_list: perUser(20, 30), // GET /posts (formerly GET /uploads)
  posts_update: perUser(20, 30), // PATCH /posts/{code} (formerly PATCH /editUpload)
  posts_files_add: perUser(10, 60), // POST /posts/{code}/files (formerly POST /appendUpload)
  posts_delete: perUser(20, 30), // DELETE /posts/{code} and DELETE /posts/{code}/files/{name}
  // Our own bucket (docs/rate-limits.md): POST /posts/batch, up to 100 posts per request (docs/bulk-actions.md).
  posts_batch: perUser(10, 60),
  reports: perUser(3, 60), // post, user and (Relay) comment reports, combined
  usage_history: perUser(30, 60), // GET /usage-history
  analytics: perUser(30, 60), // GET /analytics
  gifs: { limit: 60, windowSeconds: 60, scope: "ip" }, // GET /gifs, per IP
  convert: perUser(10, 60), // POST /convert
  // Our own bucket (docs/rate-limits.md): HEAD, PATCH and DELETE of a resumable upload
  // (creation counts on `upload`). 120 a minute is 100 MB/s with tus-js-client's 50 MB chunks.
  tus: perUser(120, 60),
  // Webhooks (issue #19; our own buckets: docs/webhooks.md, "API")
  webhooks_read: perUser(60, 60), // GET /webhooks, /webhooks/{id}, /webhooks/{id}/deliveries
  webhooks_write: perUser(20, 60), // create, update, delete
  webhooks_test: perUser(5, 60), // POST /webhooks/{id}/test
  // Short links and folders (issue 26; our own buckets: docs/short-links.md, docs/folders.md)
  links_read: perUser(60, 60), // GET /links
  links_write: perUser(30, 60), // POST /links, DELETE /links/{code}
  folders_read: perUser(60, 60), // GET /folders, GET /folders/{id}
  folders_write: perUser(30, 60), // create, rename, delete a folder; add and remove posts
  // Tags, QR codes (issue 40; our own buckets: docs/tags.md, docs/qr-and-visits.md)
  tags_read: perUser(60, 60), // GET /tags
  tags_write: perUser(30, 60), // create, change, delete a tag
  qr: perUser(30, 60), // GET /posts/{code}/qr, GET /links/{code}/qr (a PNG is drawn on the CPU)
  // Guest uploads into a folder (issue 40 §4; our own bucket: docs/guest-uploads.md), per client address: no key.
  guest_upload: { limit: 10, windowSeconds: 60, scope: "ip" },
  // Relay only
  block: perUser(10, 60),
  unblock: perUser(10, 60),
  follow: perUser(30, 60),
  unfollow: perUser(30, 60),
  followers_list: perUser(30, 60),
  following_list: perUser(30, 60),
  profile_update: perUser(10, 60),
  avatar: perUser(10, 60),
  banner: perUser(10, 60),
  theme_update: perUser(20, 60),
  likes: perUser(30, 60), // post like and comment like, on and off, shared
  comments_write: perUser(5, 60), // create comment and delete comment, shared
  notifications_list: perUser(60, 60),
  notifications_unread: perUser(60, 60),
  notifications_read: perUser(60, 60),
  preferences_get: perUser(20, 60),
  preferences_update: perUser(20, 60),
  // Own additions (docs/two-factor.md, docs/passkeys.md): settings of the sign-in factors.
  two_factor: perUser(20, 60),
  passkeys: perUser(20, 60),
  // Own addition (docs/account-deletion.md): "Download my data" reads every file of the account.
  account_export: perUser(5, 3600),
} as const satisfies Record<string, Bucket>;

export type BucketName = keyof typeof BUCKETS;

export const UPLOAD_BURST = { max: 8, windowSeconds: 1 } as const;

/** At most `max` per IP per post per `windowSeconds`. */
export const VIEW_DEDUP = { max: 3, windowSeconds: 3600 } as const;

/** Subjects carry their kind (user:, team:, ip:) so a team id can never collide with a user id. */
export function bucketKey(bucket: BucketName, subject: string): string {
  return `${bucket}:${subject}`;
}

export const userSubject = (userId: string): string => `user:${userId}`;
export const ipSubject = (ip: string): string => `ip:${ip}`;

/** A team key counts per team (not per member or owner), any other key per account. */
export const principalSubject = (principal: Principal): string =>
  principal.kind === "team" ? `team:${principal.team.id}` : userSubject(principal.user.id);

export interface BucketRule {
  key: string;
  /** Times RATE_LIMIT_SCALE (1 by default). */
  limit: number;
  windowSeconds: number;
}

/** One rule for the dispatcher and the web pages' actions, so a like on discover and one over Relay share a limit. */
export function bucketRule(bucket: BucketName, subject: string): BucketRule {
  const { limit, windowSeconds } = BUCKETS[bucket];
  return { key: bucketKey(bucket, subject), limit: limit * env().RATE_LIMIT_SCALE, windowSeconds };
}

export function hitBucket(store: CounterStore, bucket: BucketName, subject: string): Promise<WindowResult> {
  const { key, limit, windowSeconds } = bucketRule(bucket, subject);
  return store.hit(key, limit, windowSeconds);
}
