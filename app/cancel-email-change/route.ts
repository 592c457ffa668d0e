/**
 * The one-click cancel mailed to the old address when someone asks to change the account's
 * email (docs/security.md, issue 39 §1). A plain GET does it: cancelling only keeps the
 * address as it is, so a mail scanner that follows the link can do no harm (the owner asks
 * again). Answers with a redirect to the confirmation page, which says what happened.
 */
import { env } from "@/lib/config/env";
import { cancelEmailChange } from "@/lib/auth/email-change";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const kept = await cancelEmailChange(token.slice(0, 100));
  const target = kept === null ? "/confirm-email?error=cancel" : "/confirm-email?cancelled=1";
  return new Response(null, {
    status: 303,
    headers: { location: new URL(target, env().PUBLIC_URL).toString(), "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}
