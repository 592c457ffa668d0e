/**
 * What happened to posts, told to whoever listens: the domain emits, features subscribe
 * (webhooks today, docs/webhooks.md). Domain code so never imports the features above it
 * (docs/architecture.md).
 *
 * Listeners are kept on globalThis by name: the production server runs two copies of the
 * modules (the custom server's bundle and Next's), and an event emitted by either must
 * reach the one listener, registered once whichever copy registers it. A listener must not
 * throw into the emitter (a request never fails for a webhook); errors are logged here.
 */
import type { PostRecord } from "./record";

export type ModerationAction = "moderated" | "released" | "restricted";

export interface CommentFacts {
  id: string;
  body: string;
  createdAt: Date;
  author: { id: string; displayUsername: string };
}

export type PostEvent =
  /** A post was written by an upload (`moderated` already set when auto-moderation flagged it). */
  | { type: "uploaded"; post: PostRecord }
  /** A post was deleted (by its owner, the last file's removal, expiry or an operator). */
  | { type: "deleted"; post: PostRecord }
  /** An operator changed the moderation state of the post `code`. */
  | { type: "moderated"; code: string; action: ModerationAction }
  /** Someone commented on the post. */
  | { type: "commented"; post: PostRecord; comment: CommentFacts };

export type PostEventListener = (event: PostEvent) => void;

const shared = globalThis as unknown as { __mediahostPostListeners?: Map<string, PostEventListener> };
const listeners = (shared.__mediahostPostListeners ??= new Map());

/** Registers (or replaces) the listener called `name`. */
export function onPostEvent(name: string, listener: PostEventListener): void {
  listeners.set(name, listener);
}

export function emitPostEvent(event: PostEvent): void {
  for (const [name, listener] of listeners) {
    try {
      listener(event);
    } catch (error) {
      console.error(`[events] listener ${name} failed on ${event.type}: ${String(error)}`);
    }
  }
}
