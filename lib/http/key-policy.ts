/** Who may call a route (the authenticate step of docs/http-core.md). */
import { authenticateKey } from "@/lib/auth/authenticate";
import { authenticateWebSession } from "@/lib/auth/web-session";
import { DomainError } from "@/lib/errors";
import { accountOf, hasGalleryAccess, type Principal } from "@/lib/types/principal";
import { KEY_HEADER, type RouteDef, type Surface } from "./route";

/** 401/403 when refused; null on a route that needs none. */
export async function authorize(route: RouteDef, key: string | null, surface: Surface, requestHeaders: Headers): Promise<Principal | null> {
  const header = KEY_HEADER[surface];
  if (route.auth === "none") return null;
  // Without a key, our own pages authenticate with the web sign-in cookie (same-origin only).
  const principal = key?.trim() ? await authenticateKey(key, header) : await authenticateWebSession(requestHeaders);
  if (!key?.trim()) {
    if (!principal && route.auth === "optional") return null;
    if (!principal) throw new DomainError("unauthorized", `Missing ${header} header.`);
  }
  if (!principal) throw new DomainError("unauthorized", `The ${header} is not recognized.`);
  checkPrincipal(route, principal);
  return principal;
}

export function checkPrincipal(route: RouteDef, principal: Principal): void {
  // A team key whose owner is suspended is refused on every endpoint with 403 suspended
  // (docs/http-core.md, the authenticate step), even where team keys are otherwise 401.
  if (principal.kind === "team" && principal.owner.suspended) {
    throw new DomainError("suspended", "The team owner's account is suspended.");
  }
  if (principal.kind === "team" && !(route.keys ?? ["personal"]).includes("team")) {
    throw new DomainError("unauthorized", "Team keys cannot be used on this endpoint.");
  }
  if (principal.kind !== "team" && !(route.keys ?? ["personal"]).includes("personal")) {
    throw new DomainError("unauthorized", "This endpoint needs a team key.");
  }
  if (accountOf(principal).suspended) throw new DomainError("suspended", "This account is suspended.");
  if (principal.kind === "team" && principal.team.status === "lapsed" && route.refusesLapsedTeam) {
    throw new DomainError("forbidden", "The team's subscription has lapsed.");
  }
  if (route.galleryAccess && !hasGalleryAccess(principal)) {
    throw new DomainError("forbidden", "This key has no gallery access.");
  }
}
