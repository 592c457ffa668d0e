/** Relay social endpoints: discover, follows, blocks, likes, comments, notifications (being built). */
import type { z } from "zod";
import type { Principal } from "../auth/principal";
import { DomainError } from "../errors";
import type { PagingQuery } from "../http/parse";
import type { commentBody, markReadBody } from "./params";

const notYet = (what: string): never => {
  throw new DomainError("internal", `${what} is not available yet.`, 501);
};
const who = (p: Principal) => p.kind;

export async function discover(principal: Principal, ip: string): Promise<object> {
  return notYet(`discover ${who(principal)} ${ip}`);
}
export async function follow(principal: Principal, id: string): Promise<object> {
  return notYet(`follow ${id} ${who(principal)}`);
}
export async function unfollow(principal: Principal, id: string): Promise<object> {
  return notYet(`unfollow ${id} ${who(principal)}`);
}
export async function removeFollower(principal: Principal, id: string): Promise<object> {
  return notYet(`remove follower ${id} ${who(principal)}`);
}
export async function listFollowers(principal: Principal, id: string, query: PagingQuery): Promise<object> {
  return notYet(`followers ${id} ${who(principal)} ${query.limit}`);
}
export async function listFollowing(principal: Principal, id: string, query: PagingQuery): Promise<object> {
  return notYet(`following ${id} ${who(principal)} ${query.limit}`);
}
export async function block(principal: Principal, id: string): Promise<object> {
  return notYet(`block ${id} ${who(principal)}`);
}
export async function unblock(principal: Principal, id: string): Promise<object> {
  return notYet(`unblock ${id} ${who(principal)}`);
}
export async function listBlocks(principal: Principal, id: string, query: PagingQuery): Promise<object> {
  return notYet(`blocks ${id} ${who(principal)} ${query.limit}`);
}
export async function likePost(principal: Principal, code: string, on: boolean): Promise<object> {
  return notYet(`like ${code} ${on} ${who(principal)}`);
}
export async function listComments(principal: Principal, code: string): Promise<object> {
  return notYet(`comments ${code} ${who(principal)}`);
}
export async function createComment(principal: Principal, code: string, body: z.output<typeof commentBody>): Promise<object> {
  return notYet(`comment ${code} ${body.body.length} ${who(principal)}`);
}
export async function deleteComment(principal: Principal, id: string): Promise<object> {
  return notYet(`delete comment ${id} ${who(principal)}`);
}
export async function likeComment(principal: Principal, id: string, on: boolean): Promise<object> {
  return notYet(`comment like ${id} ${on} ${who(principal)}`);
}
export async function listNotifications(principal: Principal, query: PagingQuery): Promise<object> {
  return notYet(`notifications ${who(principal)} ${query.limit}`);
}
export async function unreadCount(principal: Principal): Promise<object> {
  return notYet(`unread ${who(principal)}`);
}
export async function markNotificationsRead(principal: Principal, body: z.output<typeof markReadBody>): Promise<object> {
  return notYet(`mark read ${who(principal)} ${body.ids?.length ?? "all"}`);
}
