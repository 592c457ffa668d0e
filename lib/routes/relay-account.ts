/**
 * Relay account endpoints: sign-in, sign-up, sessions, profile, avatar and banner,
 * notification preferences. HTTP side only: the dispatcher has authenticated the key
 * (team keys get 401 here), counted the rate-limit bucket and parsed the body; the rules
 * live in lib/auth, lib/sessions and lib/users. docs/relay-account.md describes the choices.
 */
import { verifyLinkDomain } from "../users/link-domain-proof";
import type { RouteRequest } from "../types/route-request";
import type { z } from "zod";
import { hasGalleryAccess, type Principal } from "../types/principal";
import { signIn, type SignedIn } from "../auth/login";
import { signUp } from "../auth/register";
import { DomainError } from "../errors";
import { listSessions as readSessions, revokeAllSessions, revokeSession, type SessionRecord } from "../sessions/devices";
import { PROFILE_IMAGE_FIELD, removeProfileImage, setProfileImage, type ProfileImageKind } from "../users/images";
import { receiveSingleFile } from "../uploads/multipart";
import { readPreferences, updatePreferences as writePreferences, type NotificationPreferences } from "../users/preferences";
import { getOwnAccount } from "../users/profile";
import { updateProfile as writeProfile } from "../users/profile-edit";
import type { loginBody, preferencesBody, profileBody, registerBody } from "./params";
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

/** The signed-in user. These routes take personal keys only, so a team key never gets here. */
function userIdOf(principal: Principal): string {
  if (principal.kind === "team") throw new DomainError("unauthorized", "Team keys cannot be used on this endpoint.");
  return principal.user.id;
}

/** The Relay session making the request (null for an app key, which Relay never sees). */
const sessionIdOf = (principal: Principal): string | null => (principal.kind === "session" ? principal.sessionId : null);

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

async function userReply(principal: Principal): Promise<{ user: z.infer<typeof OwnAccount> }> {
  return { user: ownAccount(await getOwnAccount(userIdOf(principal)), hasGalleryAccess(principal)) };
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
export async function listSessions(principal: Principal) {
  const current = sessionIdOf(principal);
  const sessions = await readSessions(userIdOf(principal));
  return { sessions: sessions.map((s) => sessionView(s, current)) };
}

/** DELETE /sessions/{id} */
export async function deleteSession(principal: Principal, id: string) {
  await revokeSession(userIdOf(principal), id);
  return { id, deleted: true as const };
}

/** DELETE /sessions: every session, the calling one included. */
export async function deleteSessions(principal: Principal) {
  return { deleted_count: await revokeAllSessions(userIdOf(principal)) };
}

/** PATCH /users/@me */
export async function updateProfile(principal: Principal, body: z.output<typeof profileBody>) {
  await writeProfile(userIdOf(principal), {
    nickname: body.nickname,
    bio: body.bio,
    theme: body.theme,
    linkDomain: body.link_domain,
  });
  return userReply(principal);
}

/** POST /users/@me/link-domain/verify */
export async function verifyOwnLinkDomain(principal: Principal) {
  await verifyLinkDomain(userIdOf(principal));
  return userReply(principal);
}

/** POST /users/@me/avatar, POST /users/@me/banner */
export async function setImage(principal: Principal, kind: ProfileImageKind, request: RouteRequest) {
  const receive = async (tmpDir: string, maxBytes: number) =>
    (await receiveSingleFile(request, { field: PROFILE_IMAGE_FIELD, maxFileBytes: maxBytes, tmpDir })).path;
  await setProfileImage(userIdOf(principal), kind, receive, request.signal);
  return userReply(principal);
}

/** DELETE /users/@me/avatar, DELETE /users/@me/banner */
export async function removeImage(principal: Principal, kind: ProfileImageKind) {
  await removeProfileImage(userIdOf(principal), kind);
  return userReply(principal);
}

/** GET /preferences */
export async function getPreferences(principal: Principal) {
  return preferencesView(await readPreferences(userIdOf(principal)));
}

/** PATCH /preferences */
export async function updatePreferences(principal: Principal, body: z.output<typeof preferencesBody>) {
  const preferences = await writePreferences(userIdOf(principal), {
    likes: body.likes,
    comments: body.comments,
    commentLikes: body.comment_likes,
    follows: body.follows,
  });
  return preferencesView(preferences);
}
