/** The two surfaces, the API and Relay, and the header that carries the key on each (docs/keys.md; docs/http-core.md). */
export type Surface = "api" | "relay";

export const KEY_HEADER = { api: "api-key", relay: "relay-key" } as const satisfies Record<Surface, string>;
export type KeyHeader = (typeof KEY_HEADER)[Surface];
