// Only `prisma dev` (a local Prisma Postgres) loads the real package; this project never runs it.
export function startLocalDurableStreamsServer() {
  throw new Error("@prisma/streams-local is not installed: `prisma dev` is not used by this project (docs/development.md).");
}
