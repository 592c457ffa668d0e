/** Relay sessions: one relay-key per signed-in device, only its SHA-256 stored. */
import { db } from "@/lib/db/client";
import { issueKey } from "@/lib/crypto/keys";
import { DomainError } from "@/lib/errors";
import { isForeignKeyViolation } from "@/lib/prisma-support";

export const SESSION_NAME_MAX_LENGTH = 100;

export interface CreateSessionInput {
  userId: string;
  name?: string;
  userAgent?: string;
  ip?: string;
  /** Counts as a recent confirmation (lib/auth/confirmation.ts). */
  confirmed?: boolean;
}

export interface IssuedSession {
  id: string;
  key: string;
}

function sessionName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const value = name.trim();
  if (!value || value.length > SESSION_NAME_MAX_LENGTH) {
    throw new DomainError("invalid_request", `Session names are 1 to ${SESSION_NAME_MAX_LENGTH} characters.`);
  }
  return value;
}

export async function createSession(input: CreateSessionInput): Promise<IssuedSession> {
  const name = sessionName(input.name);
  const issued = issueKey("relay");
  try {
    const session = await db().relaySession.create({
      data: {
        userId: input.userId,
        keyHash: issued.hash,
        name,
        // Stored for the owner's session list only; capped so a header cannot bloat the row.
        userAgent: input.userAgent?.slice(0, 512) ?? null,
        ip: input.ip ?? null,
        confirmedAt: input.confirmed ? new Date() : null,
      },
      select: { id: true },
    });
    return { id: session.id, key: issued.key };
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new DomainError("not_found", `No user '${input.userId}'.`);
    throw error;
  }
}
