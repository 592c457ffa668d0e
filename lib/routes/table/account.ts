/** Relay: notification preferences, sessions, sign-in and sign-up. */
import { z } from "zod";
import { defineRoute } from "../../http/route";
import { accountDeleteBody, idParam, loginBody, preferencesBody, registerBody } from "../params";
import * as account from "../relay-account";
import { RELAY, deleted, Session } from "./shared";

const Preferences = z.object({ likes: z.boolean(), comments: z.boolean(), comment_likes: z.boolean(), follows: z.boolean() });

export const accountRoutes = [
  defineRoute({
    id: "getPreferences",
    method: "GET",
    path: "/preferences",
    surfaces: RELAY,
    summary: "Notification preferences",
    rateLimit: "preferences_get",
    response: Preferences,
    handler: ({ principal }) => account.getPreferences(principal),
  }),
  defineRoute({
    id: "updatePreferences",
    method: "PATCH",
    path: "/preferences",
    surfaces: RELAY,
    summary: "Change notification preferences",
    rateLimit: "preferences_update",
    body: preferencesBody,
    response: Preferences,
    handler: ({ principal, body }) => account.updatePreferences(principal, body),
  }),
  defineRoute({
    id: "listSessions",
    method: "GET",
    path: "/sessions",
    surfaces: RELAY,
    summary: "The caller's signed-in devices",
    response: z.object({ sessions: z.array(Session) }),
    handler: ({ principal }) => account.listSessions(principal),
  }),
  defineRoute({
    id: "deleteSession",
    method: "DELETE",
    path: "/sessions/{id}",
    surfaces: RELAY,
    summary: "Sign one device out",
    params: idParam,
    response: deleted("id"),
    handler: ({ principal, params }) => account.deleteSession(principal, params.id),
  }),
  defineRoute({
    id: "deleteSessions",
    method: "DELETE",
    path: "/sessions",
    surfaces: RELAY,
    summary: "Sign every device out",
    response: z.object({ deleted_count: z.number().int() }),
    handler: ({ principal }) => account.deleteSessions(principal),
  }),
  defineRoute({
    id: "deleteAccount",
    method: "POST",
    path: "/users/@me/delete",
    surfaces: RELAY,
    summary:
      "Delete the caller's account and everything of it (password or code; docs/account-deletion.md); 403 naming the teams while the caller owns a team with other members, unless delete_teams",
    rateLimit: "two_factor",
    body: accountDeleteBody,
    response: z.object({ id: z.string(), deleted: z.literal(true), posts: z.number().int(), teams: z.number().int() }),
    handler: ({ principal, body, ip }) => account.deleteOwnAccount(principal, body, ip),
  }),
  defineRoute({
    id: "exportAccount",
    method: "GET",
    path: "/users/@me/export",
    surfaces: RELAY,
    summary: "Download my data: a zip of every file and the posts, comments and likes as JSON, streamed as it is made",
    rateLimit: "account_export",
    response: { binary: "application/zip, as an attachment" },
    handler: ({ principal }) => account.exportOwnAccount(principal),
  }),
  defineRoute({
    id: "login",
    method: "POST",
    path: "/auth/login",
    surfaces: RELAY,
    summary: "Sign in; returns a relay-key",
    auth: "none",
    body: loginBody,
    response: z.object({ key: z.string(), session: Session }),
    handler: ({ body, request, ip }) => account.login(body, request, ip),
  }),
  defineRoute({
    id: "register",
    method: "POST",
    path: "/auth/register",
    surfaces: RELAY,
    summary: "Create an account (when sign-up is open); returns a relay-key",
    auth: "none",
    body: registerBody,
    response: z.object({ key: z.string(), session: Session }),
    handler: ({ body, request, ip }) => account.register(body, request, ip),
  }),
];
