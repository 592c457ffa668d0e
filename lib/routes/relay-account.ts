/**
 * Relay account endpoints: sign-in, sign-up, sessions, profile, avatar and banner,
 * notification preferences. HTTP side only: the dispatcher has authenticated the key
 * (team keys get 401 here), counted the rate-limit bucket and parsed the body; the rules
 * live in lib/auth, lib/sessions and lib/users. docs/relay-account.md describes the choices.
 */
import { verifyLinkDomain } from "../users/link-domain-proof";
import type { RouteRequest } from "../types/route-request";
import type { z } from "zod";
import { hasGalleryAccess, type PersonalPrincipal } from "../types/principal";
import { signIn, type SignedIn } from "../auth/login";
import { signUp } from "../auth/register";
import { listSessions as readSessions, revokeAllSessions, revokeSession, type SessionRecord } from "../sessions/devices";
import { PROFILE_IMAGE_FIELD, removeProfileImage, setProfileImage, type ProfileImageKind } from "../users/images";
import { receiveSingleFile } from "../uploads/multipart";
import { readPreferences, updatePreferences as writePreferences, type NotificationPreferences } from "../users/preferences";
import { getOwnAccount } from "../users/profile";
import { updateProfile as writeProfile } from "../users/profile-edit";
import type { accountDeleteBody, loginBody, preferencesBody, profileBody, registerBody } from "./params";
import { deleteOwnAccount as eraseAccount } from "../accounts/delete";
import { exportAccount } from "../accounts/export";
import { contentDisposition } from "../delivery";
import { Readable } from "node:stream";
import { DomainError } from "../errors";
import type { OwnAccount } from "../presenters/schemas";
import { ownAccount } from "../presenters/views";

interface SessionView {
  id: string;
  name: string | null;
  current: boolean;
  created_at: string;
  last_active_at: string;
}

interface PreferencesView {
  likes: boolean;
  comments: boolean;
  comment_likes: boolean;
  follows: boolean;
}

/** The Relay session making the request (null for an app key, which Relay never sees). */
const sessionIdOf = (principal: PersonalPrincipal): string | null => (principal.kind === "session" ? principal.sessionId : null);

function sessionView(session: SessionRecord, currentId: string | null): SessionView {
  return {
    id: session.id,
    name: session.name,
    current: session.id === currentId,
    created_at: session.createdAt.toISOString(),
    last_active_at: session.lastActiveAt.toISOString(),
  };
}

const signedInView = ({ key, session }: SignedIn) => ({ key, session: sessionView(session, session.id) });

function preferencesView(p: NotificationPreferences): PreferencesView {
  return { likes: p.likes, comments: p.comments, comment_likes: p.commentLikes, follows: p.follows };
}

async function userReply(principal: PersonalPrincipal): Promise<{ user: z.infer<typeof OwnAccount> }> {
  return { user: ownAccount(await getOwnAccount(principal.user.id), hasGalleryAccess(principal)) };
}

/** POST /relay/auth/login */
export async function login(body: z.output<typeof loginBody>, request: RouteRequest, ip: string) {
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

/** POST /relay/auth/register */
export async function register(body: z.output<typeof registerBody>, request: RouteRequest, ip: string) {
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

/** GET /sessions */
export async function listSessions(principal: PersonalPrincipal) {
  const current = sessionIdOf(principal);
  const sessions = await readSessions(principal.user.id);
  return { sessions: sessions.map((s) => sessionView(s, current)) };
}

/** DELETE /sessions/{id} */
export async function deleteSession(principal: PersonalPrincipal, id: string) {
  await revokeSession(principal.user.id, id);
  return { id, deleted: true as const };
}

/** DELETE /sessions: every session, the calling one included. */
export async function deleteSessions(principal: PersonalPrincipal) {
  return { deleted_count: await revokeAllSessions(principal.user.id) };
}

/** PATCH /users/@me */
export async function updateProfile(principal: PersonalPrincipal, body: z.output<typeof profileBody>) {
  await writeProfile(principal.user.id, {
    nickname: body.nickname,
    bio: body.bio,
    theme: body.theme,
    linkDomain: body.link_domain,
  });
  return userReply(principal);
}

/** POST /users/@me/link-domain/verify */
export async function verifyOwnLinkDomain(principal: PersonalPrincipal) {
  await verifyLinkDomain(principal.user.id);
  return userReply(principal);
}

/** POST /users/@me/avatar, POST /users/@me/banner */
export async function setImage(principal: PersonalPrincipal, kind: ProfileImageKind, request: RouteRequest) {
  const receive = async (tmpDir: string, maxBytes: number) =>
    (await receiveSingleFile(request, { field: PROFILE_IMAGE_FIELD, maxFileBytes: maxBytes, tmpDir })).path;
  await setProfileImage(principal.user.id, kind, receive, request.signal);
  return userReply(principal);
}

/** DELETE /users/@me/avatar, DELETE /users/@me/banner */
export async function removeImage(principal: PersonalPrincipal, kind: ProfileImageKind) {
  await removeProfileImage(principal.user.id, kind);
  return userReply(principal);
}

/** GET /preferences */
export async function getPreferences(principal: PersonalPrincipal) {
  return preferencesView(await readPreferences(principal.user.id));
}

/** PATCH /preferences */
export async function updatePreferences(principal: PersonalPrincipal, body: z.output<typeof preferencesBody>) {
  const preferences = await writePreferences(principal.user.id, {
    likes: body.likes,
    comments: body.comments,
    commentLikes: body.comment_likes,
    follows: body.follows,
  });
  return preferencesView(preferences);
}

/** POST /users/@me/delete: from a signed-in session only (an app key never deletes its account). */
export async function deleteOwnAccount(principal: PersonalPrincipal, body: z.output<typeof accountDeleteBody>, ip: string) {
  if (principal.kind !== "session") throw new DomainError("forbidden", "Only a signed-in session can delete the account.");
  const proof = { password: body.password, code: body.code };
  const done = await eraseAccount(principal.user.id, principal.sessionId, proof, ip, { deleteTeams: body.delete_teams === true });
  return { id: done.id, deleted: true as const, posts: done.posts, teams: done.teams };
}

/** GET /users/@me/export: the zip, streamed as it is made (lib/accounts/export.ts). */
export async function exportOwnAccount(principal: PersonalPrincipal): Promise<Response> {
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
