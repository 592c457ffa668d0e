/**
 * Relay endpoints of the sign-in factors: two-factor sign-in (TOTP + recovery codes) and
 * passkeys, used by the dashboard's settings through the web session, and by any Relay
 * client. HTTP side only; the rules are in lib/auth/factors (docs/two-factor.md,
 * docs/passkeys.md).
 */
import type { RouteRequest } from "../types/route-request";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { z } from "zod";
import type { PersonalPrincipal } from "../types/principal";
import {
  verifyPasskeySignIn,
  deletePasskey as removePasskey,
  listPasskeys as readPasskeys,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  renamePasskey as rename,
  type PasskeyRecord,
} from "../auth/factors/passkeys";
import { beginTotpSetup, confirmTotpSetup, disableTwoFactor, renewRecoveryCodes, twoFactorStatus } from "../auth/factors/two-factor";
import { confirmSession, requireRecentConfirmation } from "../auth/confirmation";
import { changePassword } from "../auth/passwords";
import { requestEmailChange } from "../auth/email-change";
import { qrSvg } from "../auth/factors/qr";
import { db } from "../db/client";
import { DomainError } from "../errors";
import { deviceName } from "../sessions/device-name";
import { openSession } from "../sessions/devices";
import type {
  emailChangeBody,
  passwordChangeBody,
  factorProofBody,
  passkeyCreateBody,
  passkeyLoginBody,
  passkeyRenameBody,
  totpConfirmBody,
} from "./params";

/** The caller's session id (null for an app key, which is never confirmed). */
const sessionIdOf = (principal: PersonalPrincipal): string | null => (principal.kind === "session" ? principal.sessionId : null);

/** Adding and deleting passkeys need a recent confirmation (lib/auth/confirmation.ts). */
async function confirmedUserId(principal: PersonalPrincipal): Promise<string> {
  await requireRecentConfirmation(principal.user.id, sessionIdOf(principal));
  return principal.user.id;
}

/** POST /auth/confirm */
export async function confirmThisSession(principal: PersonalPrincipal, body: z.output<typeof factorProofBody>, ip: string) {
  const sessionId = sessionIdOf(principal);
  if (!sessionId) throw new DomainError("unauthorized", "Only a signed-in session can be confirmed.");
  return { confirmed_until: (await confirmSession(principal.user.id, sessionId, body, ip)).toISOString() };
}

interface PasskeyView {
  id: string;
  name: string;
  backed_up: boolean;
  created_at: string;
  last_used_at: string | null;
}

const passkeyView = (p: PasskeyRecord): PasskeyView => ({
  id: p.id,
  name: p.name,
  backed_up: p.backedUp,
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
});

/** GET /auth/two-factor */
export async function getTwoFactor(principal: PersonalPrincipal) {
  const status = await twoFactorStatus(principal.user.id);
  return { totp_enabled: status.totpEnabled, recovery_codes_left: status.recoveryCodesLeft, passkey_count: status.passkeyCount };
}

/** POST /auth/two-factor/totp */
export async function startTotp(principal: PersonalPrincipal) {
  const setup = await beginTotpSetup(principal.user.id);
  return { secret: setup.secret, otpauth_uri: setup.uri, qr_svg: await qrSvg(setup.uri) };
}

/** POST /auth/two-factor/totp/confirm */
export async function confirmTotp(principal: PersonalPrincipal, body: z.output<typeof totpConfirmBody>, ip: string) {
  const codes = await confirmTotpSetup(principal.user.id, body.code, ip);
  return { totp_enabled: true as const, recovery_codes: codes };
}

/** POST /auth/password */
export async function changeOwnPassword(principal: PersonalPrincipal, body: z.output<typeof passwordChangeBody>, ip: string) {
  const change = { password: body.password, code: body.code, newPassword: body.new_password };
  return { signed_out: await changePassword(principal.user.id, sessionIdOf(principal), change, ip) };
}

/** POST /users/@me/email */
export async function changeOwnEmail(principal: PersonalPrincipal, body: z.output<typeof emailChangeBody>, ip: string) {
  const result = await requestEmailChange(principal.user.id, body.email, { password: body.password, code: body.code }, ip);
  return { email: result.email, pending_email: result.pendingEmail };
}

/** POST /auth/two-factor/disable */
export async function disableTotp(principal: PersonalPrincipal, body: z.output<typeof factorProofBody>, ip: string) {
  await disableTwoFactor(principal.user.id, body, ip);
  return { totp_enabled: false as const };
}

/** POST /auth/two-factor/recovery-codes */
export async function newRecoveryCodes(principal: PersonalPrincipal, body: z.output<typeof factorProofBody>, ip: string) {
  return { recovery_codes: await renewRecoveryCodes(principal.user.id, body, ip) };
}

/** GET /auth/passkeys */
export async function listPasskeys(principal: PersonalPrincipal) {
  return { passkeys: (await readPasskeys(principal.user.id)).map(passkeyView) };
}

/** POST /auth/passkeys/options */
export async function passkeyOptions(principal: PersonalPrincipal) {
  return { options: { ...(await passkeyRegistrationOptions(await confirmedUserId(principal))) } };
}

/** POST /auth/passkeys */
export async function createPasskey(principal: PersonalPrincipal, body: z.output<typeof passkeyCreateBody>) {
  const record = await registerPasskey(await confirmedUserId(principal), body.response as unknown as RegistrationResponseJSON, body.name);
  return { passkey: passkeyView(record) };
}

/** PATCH /auth/passkeys/{id} */
export async function renamePasskey(principal: PersonalPrincipal, id: string, body: z.output<typeof passkeyRenameBody>) {
  return { passkey: passkeyView(await rename(principal.user.id, id, body.name)) };
}

/** DELETE /auth/passkeys/{id} */
export async function deletePasskey(principal: PersonalPrincipal, id: string) {
  await removePasskey(await confirmedUserId(principal), id);
  return { id, deleted: true as const };
}

/** POST /auth/passkey-login/options */
export async function passkeyLoginOptions(ip: string) {
  return { options: { ...(await passkeySignInOptions(ip)) } };
}

/** POST /auth/passkey-login: a Relay session from a passkey, as POST /auth/login gives one from a password. */
export async function passkeyLogin(body: z.output<typeof passkeyLoginBody>, request: RouteRequest, ip: string) {
  const userId = await verifyPasskeySignIn(body.response as unknown as AuthenticationResponseJSON);
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { suspended: true } });
  if (user.suspended) throw new DomainError("suspended", "This account is suspended.");
  const userAgent = request.headers.get("user-agent");
  const { key, session } = await openSession({
    userId,
    name: deviceName(userAgent, body.device),
    userAgent: userAgent ?? undefined,
    ip,
    confirmed: true,
  });
  return {
    key,
    session: {
      id: session.id,
      name: session.name,
      current: true,
      created_at: session.createdAt.toISOString(),
      last_active_at: session.lastActiveAt.toISOString(),
    },
  };
}
