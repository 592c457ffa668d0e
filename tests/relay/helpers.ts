/** Small helpers shared by the Relay social tests. */
import { expect } from "vitest";
import { db } from "@/lib/db/client";
import { createTestUser, type TestUser } from "../support/fixtures";
import { relay, type Reply } from "../support/http";

export async function createUsers(n: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let i = 0; i < n; i++) users.push(await createTestUser());
  return users;
}

export const post = (path: string, who: TestUser, body?: unknown, ip?: string) =>
  relay(path, { method: "POST", key: who.relayKey, body, ip });
export const del = (path: string, who: TestUser, ip?: string) => relay(path, { method: "DELETE", key: who.relayKey, ip });
export const get = (path: string, who: TestUser, ip?: string) => relay(path, { key: who.relayKey, ip });

export function expectError(reply: Reply, status: number, type: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error.type, reply.text).toBe(type);
}

export function expectOk(reply: Reply): void {
  expect(reply.status, reply.text).toBe(200);
}

export async function block(blocker: TestUser, blocked: TestUser): Promise<void> {
  expectOk(await post(`/users/${blocked.id}/block`, blocker));
}

export async function counts(userId: string): Promise<{ followerCount: number; followingCount: number }> {
  return db().user.findUniqueOrThrow({ where: { id: userId }, select: { followerCount: true, followingCount: true } });
}

export async function postCounts(code: string): Promise<{ likeCount: number; commentCount: number; viewCount: number }> {
  return db().post.findUniqueOrThrow({ where: { code }, select: { likeCount: true, commentCount: true, viewCount: true } });
}

export const ids = (list: { id: string }[]): string[] => list.map((x) => x.id);
