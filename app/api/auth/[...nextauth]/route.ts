/**
 * next-auth's endpoints (/api/auth/signin, /callback, /session, /csrf, /signout). More
 * specific than the API's catch-all route, so Next sends /api/auth/* here.
 */
import NextAuth from "next-auth";
import { authOptions } from "@/lib/web/sign-in/options";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

async function handler(request: Request, context: Context): Promise<Response> {
  // Created per request so that the options (and the DATA_DIR secret) are read at run
  // time, not at build time.
  const nextAuth = NextAuth(authOptions()) as (request: Request, context: Context) => Promise<Response>;
  return nextAuth(request, context);
}

export { handler as GET, handler as POST };
