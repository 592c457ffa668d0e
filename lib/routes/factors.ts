/** Handlers of the sign-in factors area (Relay); the rules are in lib/auth/factors (docs/two-factor.md, docs/passkeys.md). */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import { confirmSession, requireRecentConfirmation } from "@/lib/auth/confirmation";
import { requestEmailChange } from "@/lib/auth/email-change";
import {
  deletePasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  renamePasskey,
  verifyPasskeySignIn,
} from "@/lib/auth/factors/passkeys";
import { qrSvg } from "@/lib/auth/factors/qr";
import { beginTotpSetup, confirmTotpSetup, disableTwoFactor, renewRecoveryCodes, twoFactorStatus } from "@/lib/auth/factors/two-factor";
import { changePassword } from "@/lib/auth/passwords";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import type { RouteContext } from "@/lib/http/route";
import { signedInView } from "@/lib/presenters/account";
import { emailChangeView, passkeyView, sessionConfirmedView, totpSetupView, twoFactorView } from "@/lib/replies/factors";
import { deviceName } from "@/lib/sessions/device-name";
import { openSession } from "@/lib/sessions/devices";
import type { PersonalPrincipal } from "@/lib/types/principal";
import { PASSWORD_MAX_LENGTH } from "@/lib/users/accounts";
import { deviceField } from "./params";

/** A WebAuthn credential id: base64url, at most 1023 bytes by the specification. */
export const passkeyParam = z.object({
  id: z
    .string()
    .min(1)
    .max(1400)
    .regex(/^[A-Za-z0-9_-]+$/, "id is not a passkey id."),
});
export const totpConfirmBody = z.object({ code: z.string().min(1).max(64) });
export const factorProofBody = z
  .object({ password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(), code: z.string().min(1).max(64).optional() })
  .refine((b) => Boolean(b.password || b.code), { message: "Send `password` or `code`." });
export const emailChangeBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
});
export const passwordChangeBody = z.object({
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(),
  code: z.string().min(1).max(64).optional(),
  new_password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
/** The browser's PublicKeyCredential as JSON (@simplewebauthn/browser); checked in depth by the verifier. */
const webauthnResponse = z.looseObject({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal("public-key"),
  response: z.looseObject({ clientDataJSON: z.string().max(8192) }),
  clientExtensionResults: z.looseObject({}).default({}),
});
export const passkeyCreateBody = z.object({ name: z.string().max(64).default("Passkey"), response: webauthnResponse });
export const passkeyRenameBody = z.object({ name: z.string().min(1).max(64) });
export const passkeyLoginBody = z.object({ response: webauthnResponse, device: deviceField });

type WithProof = { body: typeof factorProofBody };

const sessionIdOf = (principal: PersonalPrincipal): string | null => (principal.kind === "session" ? principal.sessionId : null);

/** Enrolling and removing factors need a recent confirmation (lib/auth/confirmation.ts, docs/security.md). */
async function confirmedUserId(principal: PersonalPrincipal): Promise<string> {
  await requireRecentConfirmation(principal.user.id, sessionIdOf(principal));
  return principal.user.id;
}

export async function handleConfirmSession({ principal, body, ip }: RouteContext<WithProof>) {
  const sessionId = sessionIdOf(principal);
  if (!sessionId) throw new DomainError("unauthorized", "Only a signed-in session can be confirmed.");
  return sessionConfirmedView(await confirmSession(principal.user.id, sessionId, body, ip));
}

export async function handleGetTwoFactor({ principal }: RouteContext) {
  return twoFactorView(await twoFactorStatus(principal.user.id));
}

export async function handleStartTotp({ principal }: RouteContext) {
  const setup = await beginTotpSetup(await confirmedUserId(principal));
  return totpSetupView(setup, await qrSvg(setup.uri));
}

export async function handleConfirmTotp({ principal, body, ip }: RouteContext<{ body: typeof totpConfirmBody }>) {
  const codes = await confirmTotpSetup(await confirmedUserId(principal), body.code, ip);
  return { totp_enabled: true as const, recovery_codes: codes };
}

export async function handleChangePassword({ principal, body, ip }: RouteContext<{ body: typeof passwordChangeBody }>) {
  const change = { password: body.password, code: body.code, newPassword: body.new_password };
  return { signed_out: await changePassword(principal.user.id, sessionIdOf(principal), change, ip) };
}

export async function handleChangeEmail({ principal, body, ip }: RouteContext<{ body: typeof emailChangeBody }>) {
  return emailChangeView(await requestEmailChange(principal.user.id, body.email, { password: body.password, code: body.code }, ip));
}

export async function handleDisableTotp({ principal, body, ip }: RouteContext<WithProof>) {
  await disableTwoFactor(principal.user.id, body, ip);
  return { totp_enabled: false as const };
}

export async function handleRenewRecoveryCodes({ principal, body, ip }: RouteContext<WithProof>) {
  return { recovery_codes: await renewRecoveryCodes(principal.user.id, body, ip) };
}

export async function handleListPasskeys({ principal }: RouteContext) {
  return { passkeys: (await listPasskeys(principal.user.id)).map(passkeyView) };
}

export async function handlePasskeyOptions({ principal }: RouteContext) {
  return { options: { ...(await passkeyRegistrationOptions(await confirmedUserId(principal))) } };
}

export async function handleCreatePasskey({ principal, body }: RouteContext<{ body: typeof passkeyCreateBody }>) {
  const record = await registerPasskey(await confirmedUserId(principal), body.response as unknown as RegistrationResponseJSON, body.name);
  return { passkey: passkeyView(record) };
}

export async function handleRenamePasskey({
  principal,
  params,
  body,
}: RouteContext<{ params: typeof passkeyParam; body: typeof passkeyRenameBody }>) {
  return { passkey: passkeyView(await renamePasskey(principal.user.id, params.id, body.name)) };
}

export async function handleDeletePasskey({ principal, params }: RouteContext<{ params: typeof passkeyParam }>) {
  await deletePasskey(await confirmedUserId(principal), params.id);
  return { id: params.id, deleted: true as const };
}

export async function handlePasskeyLoginOptions({ ip }: RouteContext<Record<never, never>, "personal", "none">) {
  return { options: { ...(await passkeySignInOptions(ip)) } };
}

/** POST /auth/passkey-login: a Relay session from a passkey, as POST /auth/login gives one from a password. */
export async function handlePasskeyLogin({ body, request, ip }: RouteContext<{ body: typeof passkeyLoginBody }, "personal", "none">) {
  const { userId, settled } = await verifyPasskeySignIn(body.response as unknown as AuthenticationResponseJSON);
  const user = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { suspended: true } });
  if (user.suspended) throw new DomainError("suspended", "This account is suspended.");
  const userAgent = request.headers.get("user-agent");
  const signedIn = await openSession({
    userId,
    name: deviceName(userAgent, body.device),
    userAgent: userAgent ?? undefined,
    ip,
    // A passkey still in its confirmation window signs in but does not confirm (docs/security.md).
    confirmed: settled,
  });
  return signedInView(signedIn);
}
