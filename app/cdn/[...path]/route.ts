// Direct file delivery; see lib/routes/cdn.ts.
import { serveCdn } from "@/lib/routes/cdn";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handle = (request: Request) => serveCdn(request);
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
