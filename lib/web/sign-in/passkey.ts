/** Signing in with a passkey (discoverable credential): one step, two factors (docs/passkeys.md). */
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import CredentialsProvider from "next-auth/providers/credentials";
import { verifyPasskeySignIn } from "../../auth/factors/passkeys";
import { DomainError } from "../../errors";
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
      return await webSession(await verifyPasskeySignIn(response), req);
    } catch (error) {
      throw userFacing(error);
    }
  },
});
