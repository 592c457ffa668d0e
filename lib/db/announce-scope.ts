/** The scope of unannounced writes (lib/db/unannounced.ts), apart so the adapter reads it without importing the client. */
import { AsyncLocalStorage } from "node:async_hooks";

// On globalThis: the adapter of one copy of lib/db must see a scope opened by the other.
const shared = globalThis as unknown as { __mediahostUnannounced?: AsyncLocalStorage<true> };
const scope = (shared.__mediahostUnannounced ??= new AsyncLocalStorage<true>());

export function unannounced<T>(write: () => PromiseLike<T>): Promise<T> {
  // Awaited inside the scope: a Prisma query is a lazy thenable that starts only when
  // `then` is called, which must happen here, not in the caller's context.
  return scope.run(true, async () => await write());
}

export function announcesWrites(): boolean {
  return scope.getStore() !== true;
}
