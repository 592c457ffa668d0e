/** Relay: discover, the caller's profile and its images. */
import { z } from "zod";
import { defineRoute } from "../../http/route";
import { profileBody } from "../params";
import { OwnAccount, Post } from "../../presenters/schemas";
import * as account from "../relay-account";
import * as social from "../relay-social";
import { RELAY } from "./shared";

const discover = defineRoute({
  id: "discover",
  method: "GET",
  path: "/discover",
  surfaces: RELAY,
  summary: "Up to 50 public posts, recent and popular mixed",
  response: z.object({ posts: z.array(Post) }),
  handler: ({ principal, ip }) => social.discover(principal, ip),
});

const userReply = z.object({ user: OwnAccount });

const updateProfile = defineRoute({
  id: "updateProfile",
  method: "PATCH",
  path: "/users/@me",
  surfaces: RELAY,
  summary: "Update the caller's profile and theme",
  body: profileBody,
  // A body that changes only the theme counts against the theme bucket (20/min).
  rateLimit: (body) => (body && Object.keys(body).length === 1 && "theme" in body ? "theme_update" : "profile_update"),
  response: userReply,
  handler: ({ principal, body }) => account.updateProfile(principal, body),
});

const verifyLinkDomain = defineRoute({
  id: "verifyLinkDomain",
  method: "POST",
  path: "/users/@me/link-domain/verify",
  surfaces: RELAY,
  summary: "Look for the link domain's DNS TXT proof; share URLs use the domain once it is seen",
  rateLimit: "profile_update",
  response: userReply,
  handler: ({ principal }) => account.verifyOwnLinkDomain(principal),
});

const imageRoute = (kind: "avatar" | "banner", method: "POST" | "DELETE") =>
  defineRoute({
    id: `${method === "POST" ? "set" : "remove"}${kind === "avatar" ? "Avatar" : "Banner"}`,
    method,
    path: `/users/@me/${kind}`,
    surfaces: RELAY,
    summary: `${method === "POST" ? "Upload" : "Remove"} the caller's ${kind}`,
    rateLimit: kind,
    ...(method === "POST" ? { multipart: { fields: { file: `The ${kind} image.` } } } : {}),
    response: userReply,
    handler: ({ principal, request }) =>
      method === "POST" ? account.setImage(principal, kind, request) : account.removeImage(principal, kind),
  });

export const profileRoutes = [
  discover,
  updateProfile,
  verifyLinkDomain,
  imageRoute("avatar", "POST"),
  imageRoute("avatar", "DELETE"),
  imageRoute("banner", "POST"),
  imageRoute("banner", "DELETE"),
];
