/** Handlers of the account area (Relay): the HTTP side only; the rules live in lib/auth, lib/sessions, lib/users, lib/accounts (docs/relay-account.md). */
import { Readable } from "node:stream";
import { z } from "zod";
import { deleteOwnAccount } from "@/lib/accounts/delete";
import { exportAccount } from "@/lib/accounts/export";
import { signIn } from "@/lib/auth/login";
import { signUp } from "@/lib/auth/register";
import { contentDisposition } from "@/lib/delivery";
import { DomainError } from "@/lib/errors";
import type { RouteContext } from "@/lib/http/route";
import { accountDeletedView, preferencesView, sessionView, signedInView } from "@/lib/presenters/account";
import { listSessions, revokeAllSessions, revokeSession } from "@/lib/sessions/devices";
import type { PersonalPrincipal } from "@/lib/types/principal";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/users/accounts";
import { readPreferences, updatePreferences } from "@/lib/users/preferences";
import { deviceField, type idParam } from "./params";

export const preferencesBody = z.strictObject({
  likes: z.boolean({ error: "likes must be true or false." }).optional(),
  comments: z.boolean({ error: "comments must be true or false." }).optional(),
  comment_likes: z.boolean({ error: "comment_likes must be true or false." }).optional(),
  follows: z.boolean({ error: "follows must be true or false." }).optional(),
});
export const loginBody = z.object({
  username: z.string().min(1).max(254).describe("Username or email"),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  code: z.string().min(1).max(64).optional().describe("TOTP or recovery code, for accounts with two-factor sign-in (docs/two-factor.md)"),
  device: deviceField,
});
export const registerBody = z.object({
  username: z.string().min(2).max(32),
  password: z.string().min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters.`).max(PASSWORD_MAX_LENGTH),
  email: z.email().max(254).optional(),
  invite: z.string().max(64).optional().describe("Invite code; needed when REGISTRATION=invite"),
  device: deviceField,
});
/** POST /users/@me/delete's body (docs/account-deletion.md). */
export const accountDeleteBody = z.object({
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
  delete_teams: z.boolean().optional(),
});

/** The Relay session making the request (null for an app key, which Relay never sees). */
const sessionIdOf = (principal: PersonalPrincipal): string | null => (principal.kind === "session" ? principal.sessionId : null);

export async function handleLogin({ body, request, ip }: RouteContext<{ body: typeof loginBody }, "personal", "none">) {
  const signedIn = await signIn({
    login: body.username,
    password: body.password,
    code: body.code,
    device: body.device,
    userAgent: request.headers.get("user-agent"),
    ip,
  });
  return signedInView(signedIn);
}

export async function handleRegister({ body, request, ip }: RouteContext<{ body: typeof registerBody }, "personal", "none">) {
  const signedIn = await signUp({
    username: body.username,
    password: body.password,
    email: body.email,
    invite: body.invite,
    device: body.device,
    userAgent: request.headers.get("user-agent"),
    ip,
  });
  return signedInView(signedIn);
}

export async function handleListSessions({ principal }: RouteContext) {
  const current = sessionIdOf(principal);
  const sessions = await listSessions(principal.user.id);
  return { sessions: sessions.map((s) => sessionView(s, current)) };
}

export async function handleDeleteSession({ principal, params }: RouteContext<{ params: typeof idParam }>) {
  await revokeSession(principal.user.id, params.id);
  return { id: params.id, deleted: true as const };
}

/** DELETE /sessions: every session, the calling one included. */
export async function handleDeleteSessions({ principal }: RouteContext) {
  return { deleted_count: await revokeAllSessions(principal.user.id) };
}

export async function handleGetPreferences({ principal }: RouteContext) {
  return preferencesView(await readPreferences(principal.user.id));
}

export async function handleUpdatePreferences({ principal, body }: RouteContext<{ body: typeof preferencesBody }>) {
  const preferences = await updatePreferences(principal.user.id, {
    likes: body.likes,
    comments: body.comments,
    commentLikes: body.comment_likes,
    follows: body.follows,
  });
  return preferencesView(preferences);
}

/** POST /users/@me/delete: from a signed-in session only (an app key never deletes its account). */
export async function handleDeleteAccount({ principal, body, ip }: RouteContext<{ body: typeof accountDeleteBody }>) {
  if (principal.kind !== "session") throw new DomainError("forbidden", "Only a signed-in session can delete the account.");
  const proof = { password: body.password, code: body.code };
  const done = await deleteOwnAccount(principal.user.id, principal.sessionId, proof, ip, { deleteTeams: body.delete_teams === true });
  return accountDeletedView(done);
}

/** GET /users/@me/export: the zip, streamed as it is made (lib/accounts/export.ts). */
export async function handleExportAccount({ principal }: RouteContext): Promise<Response> {
  const { stream, filename } = await exportAccount(principal.user.id);
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
    status: 200,
    headers: {
      "content-type": "application/zip",
      "content-disposition": contentDisposition("attachment", filename),
      "x-content-type-options": "nosniff",
      // One user's private data: never stored by a cache, never re-encoded on the way.
      "cache-control": "no-store, no-transform",
    },
  });
}
