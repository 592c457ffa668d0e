/** POST /convert (being built). */
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";

export async function handleConvert(principal: Principal, request: Request): Promise<Response> {
  void principal;
  void request;
  throw new DomainError("internal", "POST /convert is not available yet.", 501);
}
