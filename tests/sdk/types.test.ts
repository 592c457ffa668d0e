/**
 * The SDK's types reject what the service would refuse (docs/sdk.md, "Calls"). Checked by
 * `npm run typecheck` (CI's typecheck step): each `@ts-expect-error` fails the type check
 * when the line below it compiles, i.e. when the generated types stop constraining calls.
 * The calls are built but never sent.
 */
import { describe, expectTypeOf, it } from "vitest";
import { createApiClient, createRelayClient, type Post } from "@/sdk/src/index";

const api = createApiClient({ baseUrl: "http://127.0.0.1:9/api", apiKey: "k" });
const relay = createRelayClient({ baseUrl: "http://127.0.0.1:9/relay", relayKey: "k" });

/** Type-only: the arrow is never called. */
const typeOnly = (check: () => unknown): void => void check;

describe("SDK types", () => {
  it("paths, parameters and bodies come from the generated documents", () => {
    typeOnly(() => {
      // @ts-expect-error not an endpoint of the API
      void api.get("/no-such-path");
      // @ts-expect-error discover is Relay-only
      void api.get("/discover");
      // @ts-expect-error the path parameter is required
      void api.get("/posts/{code}");
      // @ts-expect-error privacy is an enum
      void api.patch("/posts/{code}", { params: { path: { code: "x" } }, body: { privacy: "secret" } });
      // @ts-expect-error limit is a number
      void api.get("/posts", { params: { query: { limit: "ten" } } });
      void relay.get("/discover");
    });
  });

  it("replies and paged items are typed", () => {
    typeOnly(async () => {
      expectTypeOf((await api.get("/posts/{code}", { params: { path: { code: "x" } } })).post).toEqualTypeOf<Post>();
      for await (const post of api.paginate("/posts")) expectTypeOf(post).toEqualTypeOf<Post>();
      for await (const page of relay.pages("/notifications")) expectTypeOf(page.has_more).toEqualTypeOf<boolean>();
      // @ts-expect-error discover is not paged
      void relay.paginate("/discover");
    });
  });
});
