/**
 * What happened to posts, for the features above to subscribe to (docs/webhooks.md). Listeners
 * are on globalThis by name because Next loads two copies of the modules; a listener's error is
 * logged here, never thrown into the emitter.
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
  | { type: "uploaded"; post: PostRecord }
  | { type: "deleted"; post: PostRecord }
  | { type: "moderated"; code: string; action: ModerationAction }
  | { type: "commented"; post: PostRecord; comment: CommentFacts };

export type PostEventListener = (event: PostEvent) => void;

const shared = globalThis as unknown as { __mediahostPostListeners?: Map<string, PostEventListener> };
const listeners = (shared.__mediahostPostListeners ??= new Map());

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
