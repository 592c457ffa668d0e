"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";

/** Signs out (ending this sign-in's session on the server too) and goes home. */
export function SignOutButton({ className }: { className?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      disabled={pending}
      className={className}
      onClick={() => {
        setPending(true);
        void signOut({ callbackUrl: "/" });
      }}
    >
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
