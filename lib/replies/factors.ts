/**
 * The replies of the sign-in factors area (lib/routes/table/factors.ts; docs/two-factor.md,
 * docs/passkeys.md) with the views that build them from lib/auth records.
 */
import { z } from "zod";
import type { EmailChangeResult } from "@/lib/auth/email-change";
import type { PasskeyRecord } from "@/lib/auth/factors/passkeys";
import type { TotpSetup, TwoFactorStatus } from "@/lib/auth/factors/two-factor";

export const Passkey = z.object({
  id: z.string(),
  name: z.string(),
  backed_up: z.boolean(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

export const TwoFactorStatusReply = z.object({
  totp_enabled: z.boolean(),
  recovery_codes_left: z.number().int(),
  passkey_count: z.number().int(),
});
export const TotpSetupReply = z.object({
  secret: z.string(),
  otpauth_uri: z.string(),
  qr_svg: z.string().describe("The otpauth URI as a QR code, an SVG document drawn by the server"),
});
export const TotpConfirmed = z.object({ totp_enabled: z.literal(true), recovery_codes: z.array(z.string()) });
export const SessionConfirmed = z.object({ confirmed_until: z.string() });
export const PasswordChanged = z.object({ signed_out: z.number().int() });
export const EmailChangeReply = z.object({ email: z.string().nullable(), pending_email: z.string().nullable() });
export const TotpDisabled = z.object({ totp_enabled: z.literal(false) });
export const RecoveryCodes = z.object({ recovery_codes: z.array(z.string()) });
export const PasskeyList = z.object({ passkeys: z.array(Passkey) });
export const PasskeyReply = z.object({ passkey: Passkey });
/** WebAuthn creation or request options (@simplewebauthn/server), as the browser takes them. */
export const WebAuthnOptions = z.object({ options: z.looseObject({ challenge: z.string() }) });

export const passkeyView = (p: PasskeyRecord): z.infer<typeof Passkey> => ({
  id: p.id,
  name: p.name,
  backed_up: p.backedUp,
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
});

export const twoFactorView = (s: TwoFactorStatus): z.infer<typeof TwoFactorStatusReply> => ({
  totp_enabled: s.totpEnabled,
  recovery_codes_left: s.recoveryCodesLeft,
  passkey_count: s.passkeyCount,
});

export const totpSetupView = (setup: TotpSetup, qrSvg: string): z.infer<typeof TotpSetupReply> => ({
  secret: setup.secret,
  otpauth_uri: setup.uri,
  qr_svg: qrSvg,
});

export const sessionConfirmedView = (until: Date): z.infer<typeof SessionConfirmed> => ({ confirmed_until: until.toISOString() });

export const emailChangeView = (result: EmailChangeResult): z.infer<typeof EmailChangeReply> => ({
  email: result.email,
  pending_email: result.pendingEmail,
});
