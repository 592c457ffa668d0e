/** GET /gifs (being built). */
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";
import type { Surface } from "../http/route";

export async function handleGifs(principal: Principal | null, surface: Surface, query: { limit: number; cursor?: string; search?: string }): Promise<object> {
  void principal;
  void surface;
  void query;
  throw new DomainError("internal", "GET /gifs is not available yet.", 501);
}
