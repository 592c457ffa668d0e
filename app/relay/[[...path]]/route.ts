// Every /relay request goes to the route table (lib/routes); see lib/http/dispatch.ts.
import { dispatcher } from "@/lib/routes";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handle = (request: Request) => dispatcher("relay")(request);
export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
