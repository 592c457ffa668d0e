/**
 * The scope of unannounced writes (lib/db/unannounced.ts): statements the driver adapter
 * runs inside it move no change number. A module of its own so that the adapter can read
 * it without importing the client.
 */
import { AsyncLocalStorage } from "node:async_hooks";

// On globalThis: the production server runs two copies of lib/db (the custom server's
// bundle and Next's), and the adapter of one must see a scope opened by the other.
const shared = globalThis as unknown as { __mediahostUnannounced?: AsyncLocalStorage<true> };
const scope = (shared.__mediahostUnannounced ??= new AsyncLocalStorage<true>());

/** Runs `write` so that the adapter does not announce its statements. */
export function unannounced<T>(write: () => PromiseLike<T>): Promise<T> {
  // Awaited inside the scope: a Prisma query is a lazy thenable that starts only when
  // `then` is called, which must happen here, not in the caller's context.
  return scope.run(true, async () => await write());
}

/** False inside `unannounced()`. */
export function announcesWrites(): boolean {
  return scope.getStore() !== true;
}
