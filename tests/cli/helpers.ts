/** Shared checks of the tests in tests/cli. */
import { expect } from "vitest";
import { DomainError, type ErrorType } from "@/lib/errors";

/** The DomainError a promise rejects with; fails the test when it resolves or throws something else. */
export async function domainError(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

export async function expectDomainError(promise: Promise<unknown>, type: ErrorType): Promise<DomainError> {
  const error = await domainError(promise);
  expect(error.type).toBe(type);
  return error;
}

/**
 * A key as the spec needs it: only [A-Za-z0-9_-] (ShareX and Chatterino treat other
 * characters as syntax) and at least 128 random bits after the 4-character kind prefix.
 */
export function expectWellFormedKey(key: unknown): void {
  expect(key).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
  const random = Buffer.from(String(key).slice(4), "base64url");
  expect(random.length * 8).toBeGreaterThanOrEqual(128);
}

/** JSON of a database row (BigInt columns as strings), to search it for a secret. */
export const rowText = (row: unknown): string =>
  JSON.stringify(row, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
