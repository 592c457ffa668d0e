/**
 * Passkeys (docs/passkeys.md). PUBLIC_URL is the relying party. A sign-in needs user
 * verification on the authenticator, so it counts as two factors: the device held and the
 * person verified on it.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { counterStore } from "@/lib/ratelimit";
import { addressSubject } from "@/lib/auth/attempts";
import { factorSettled } from "./settling";
import { issueChallenge, redeemChallenge } from "./webauthn-challenge";

export const PASSKEYS_PER_USER = 20;
export const PASSKEY_NAME_MAX = 64;
const SIGN_IN_OPTIONS_PER_MINUTE = 30;

export interface PasskeyRecord {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
}

const passkeySelect = { id: true, name: true, createdAt: true, lastUsedAt: true, backedUp: true } as const;

function relyingParty(): { rpID: string; origin: string; rpName: string } {
  const url = new URL(env().PUBLIC_URL);
  return { rpID: url.hostname, origin: url.origin, rpName: url.host };
}

const parseTransports = (text: string | null): AuthenticatorTransport[] | undefined => {
  if (!text) return undefined;
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? (list.filter((t) => typeof t === "string") as AuthenticatorTransport[]) : undefined;
  } catch {
    return undefined;
  }
};

export async function listPasskeys(userId: string): Promise<PasskeyRecord[]> {
  return db().passkey.findMany({ where: { userId }, select: passkeySelect, orderBy: { createdAt: "asc" } });
}

export async function passkeyRegistrationOptions(userId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = await db().user.findUniqueOrThrow({
    where: { id: userId },
    select: { displayUsername: true, passkeys: { select: { id: true, transports: true } } },
  });
  if (user.passkeys.length >= PASSKEYS_PER_USER)
    throw new DomainError("invalid_request", `At most ${PASSKEYS_PER_USER} passkeys per account.`);
  const { rpID, rpName } = relyingParty();
  return generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.displayUsername,
    userID: new TextEncoder().encode(userId),
    challenge: issueChallenge("register", userId),
    attestationType: "none",
    excludeCredentials: user.passkeys.map((p) => ({ id: p.id, transports: parseTransports(p.transports) })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
}

export async function registerPasskey(userId: string, response: RegistrationResponseJSON, name: string): Promise<PasskeyRecord> {
  const { rpID, origin } = relyingParty();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: (challenge) => redeemChallenge(challenge, "register", userId),
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new DomainError("invalid_request", `The passkey could not be registered: ${(error as Error).message}`);
  }
  if (!verified.verified) throw new DomainError("invalid_request", "The passkey could not be verified.");
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  if ((await db().passkey.count({ where: { userId } })) >= PASSKEYS_PER_USER)
    throw new DomainError("invalid_request", `At most ${PASSKEYS_PER_USER} passkeys per account.`);
  const existing = await db().passkey.findUnique({ where: { id: credential.id }, select: { id: true } });
  if (existing) throw new DomainError("invalid_request", "This passkey is already registered.");
  return db().passkey.create({
    data: {
      id: credential.id,
      userId,
      name: name.trim().slice(0, PASSKEY_NAME_MAX) || "Passkey",
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: BigInt(credential.counter),
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    },
    select: passkeySelect,
  });
}

export async function renamePasskey(userId: string, id: string, name: string): Promise<PasskeyRecord> {
  const trimmed = name.trim().slice(0, PASSKEY_NAME_MAX);
  if (!trimmed) throw new DomainError("invalid_request", "A passkey needs a name.");
  const updated = await db().passkey.updateMany({ where: { id, userId }, data: { name: trimmed } });
  if (updated.count === 0) throw new DomainError("not_found", "No such passkey.");
  return db().passkey.findUniqueOrThrow({ where: { id }, select: passkeySelect });
}

export async function deletePasskey(userId: string, id: string): Promise<void> {
  const deleted = await db().passkey.deleteMany({ where: { id, userId } });
  if (deleted.count === 0) throw new DomainError("not_found", "No such passkey.");
}

/** No allow-list: the authenticator offers its passkeys for this site. */
export async function passkeySignInOptions(ip: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const result = await counterStore().hit(`passkey_options:ip:${addressSubject(ip)}`, SIGN_IN_OPTIONS_PER_MINUTE, 60);
  if (!result.allowed)
    throw new DomainError(
      "rate_limited",
      `Too many passkey sign-ins; retry in ${result.retryAfter} s.`,
      undefined,
      undefined,
      result.retryAfter,
    );
  const { rpID } = relyingParty();
  return generateAuthenticationOptions({ rpID, challenge: issueChallenge("authenticate", null), userVerification: "required" });
}

const NOT_RECOGNISED = "That passkey was not recognised.";

/** `settled`: the passkey is older than the confirmation window (settling.ts). */
export interface PasskeySignIn {
  userId: string;
  settled: boolean;
}

export async function verifyPasskeySignIn(response: AuthenticationResponseJSON): Promise<PasskeySignIn> {
  const stored = typeof response?.id === "string" ? await db().passkey.findUnique({ where: { id: response.id } }) : null;
  if (!stored) throw new DomainError("unauthorized", NOT_RECOGNISED);
  // A discoverable credential names its user; it must be the passkey's owner.
  const handle = response.response?.userHandle;
  if (handle && Buffer.from(handle, "base64url").toString("utf8") !== stored.userId) throw new DomainError("unauthorized", NOT_RECOGNISED);
  const { rpID, origin } = relyingParty();
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => redeemChallenge(challenge, "authenticate", null),
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: stored.id,
        publicKey: new Uint8Array(Buffer.from(stored.publicKey, "base64url")),
        counter: Number(stored.counter),
        transports: parseTransports(stored.transports),
      },
      requireUserVerification: true,
    });
  } catch {
    throw new DomainError("unauthorized", NOT_RECOGNISED);
  }
  if (!verified.verified) throw new DomainError("unauthorized", NOT_RECOGNISED);
  // A conditional update: a cloned authenticator replaying an old signature counter loses the race.
  const newCounter = BigInt(verified.authenticationInfo.newCounter);
  await db().passkey.updateMany({
    where: { id: stored.id, ...(newCounter > 0n ? { counter: { lt: newCounter } } : {}) },
    data: { counter: newCounter, lastUsedAt: new Date(), backedUp: verified.authenticationInfo.credentialBackedUp },
  });
  return { userId: stored.userId, settled: factorSettled(stored.createdAt) };
}
