/** The second sign-in step for accounts with two-factor sign-in (docs/two-factor.md). */
import CredentialsProvider from "next-auth/providers/credentials";
import { redeemPendingTicket } from "@/lib/auth/factors/pending";
import { verifySecondFactor } from "@/lib/auth/factors/two-factor";
import { DomainError } from "@/lib/errors";
import { requestIp } from "./client";
import { field, userFacing, webSession } from "./session";

/** Tells the sign-in form to ask for a code: a thrown message is a credentials provider's only channel to the browser. */
export const TWO_FACTOR_PREFIX = "two-factor:";

/** The second step: the ticket from the password step and a TOTP or recovery code. */
export const twoFactorSignIn = CredentialsProvider({
  id: "two-factor",
  name: "Two-factor code",
  credentials: {
    ticket: { label: "Ticket", type: "text" },
    code: { label: "Code", type: "text" },
  },
  async authorize(credentials, req) {
    try {
      const userId = redeemPendingTicket(field(credentials, "ticket"));
      if (!userId) throw new DomainError("unauthorized", "This sign-in took too long; please enter your password again.");
      await verifySecondFactor(userId, field(credentials, "code"), requestIp(req));
      return await webSession(userId, req);
    } catch (error) {
      throw userFacing(error);
    }
  },
});
