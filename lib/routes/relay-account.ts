/** Relay account endpoints: sign-in, sessions, profile, avatar and banner, preferences (being built). */
import type { z } from "zod";
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";
import type { loginBody, preferencesBody, profileBody, registerBody } from "./params";

const notYet = (what: string): never => {
  throw new DomainError("internal", `${what} is not available yet.`, 501);
};

export async function login(body: z.output<typeof loginBody>, request: Request, ip: string): Promise<object> {
  return notYet(`login ${body.username} ${request.method} ${ip}`);
}
export async function register(body: z.output<typeof registerBody>, request: Request, ip: string): Promise<object> {
  return notYet(`register ${body.username} ${request.method} ${ip}`);
}
export async function listSessions(principal: Principal): Promise<object> {
  return notYet(`sessions of ${principal.kind}`);
}
export async function deleteSession(principal: Principal, id: string): Promise<object> {
  return notYet(`delete session ${id} ${principal.kind}`);
}
export async function deleteSessions(principal: Principal): Promise<object> {
  return notYet(`delete sessions ${principal.kind}`);
}
export async function updateProfile(principal: Principal, body: z.output<typeof profileBody>): Promise<object> {
  return notYet(`profile update ${principal.kind} ${Object.keys(body)}`);
}
export async function setImage(principal: Principal, kind: "avatar" | "banner", request: Request): Promise<object> {
  return notYet(`${kind} upload ${principal.kind} ${request.method}`);
}
export async function removeImage(principal: Principal, kind: "avatar" | "banner"): Promise<object> {
  return notYet(`${kind} removal ${principal.kind}`);
}
export async function getPreferences(principal: Principal): Promise<object> {
  return notYet(`preferences ${principal.kind}`);
}
export async function updatePreferences(principal: Principal, body: z.output<typeof preferencesBody>): Promise<object> {
  return notYet(`preferences update ${principal.kind} ${Object.keys(body)}`);
}
