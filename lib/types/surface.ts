/** The two surfaces of interface.md and the header that carries the key on each (Authentication rule 1). */
export type Surface = "api" | "relay";

export const KEY_HEADER = { api: "api-key", relay: "relay-key" } as const satisfies Record<Surface, string>;
export type KeyHeader = (typeof KEY_HEADER)[Surface];
