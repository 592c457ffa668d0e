/** Signing in with a passkey (discoverable credential): one step, two factors (docs/passkeys.md). */
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import CredentialsProvider from "next-auth/providers/credentials";
import { verifyPasskeySignIn } from "@/lib/auth/factors/passkeys";
import { DomainError } from "@/lib/errors";
import { field, userFacing, webSession } from "./session";

export const passkeySignIn = CredentialsProvider({
  id: "passkey",
  name: "Passkey",
  credentials: { response: { label: "Passkey response", type: "text" } },
  async authorize(credentials, req) {
    try {
      let response: AuthenticationResponseJSON;
      try {
        response = JSON.parse(field(credentials, "response")) as AuthenticationResponseJSON;
      } catch {
        throw new DomainError("unauthorized", "That passkey was not recognised.");
      }
      const signIn = await verifyPasskeySignIn(response);
      // A passkey younger than the confirmation window signs in but does not confirm (docs/security.md).
      return await webSession(signIn.userId, req, signIn.settled);
    } catch (error) {
      throw userFacing(error);
    }
  },
});
