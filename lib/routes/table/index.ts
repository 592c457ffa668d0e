/**
 * Every endpoint of the API and Relay, declared once, one file per domain. The catch-all route
 * handlers under app/api and app/relay dispatch into this table, and the OpenAPI documents
 * are generated from it, in this order (the order of the OpenAPI paths; docs/http-core.md).
 */
import type { RouteDef } from "@/lib/http/route";
import { accountRoutes } from "./account";
import { factorRoutes } from "./factors";
import { folderRoutes } from "./folders";
import { linkRoutes } from "./links";
import { mediaRoutes } from "./media";
import { postRoutes } from "./posts";
import { profileRoutes } from "./profile";
import { reportRoutes } from "./reports";
import { socialRoutes } from "./social";
import { tagRoutes } from "./tags";
import { tusRoutes } from "./tus";
import { userRoutes } from "./users";
import { webhookRoutes } from "./webhooks";

export const ROUTES: readonly RouteDef[] = [
  ...postRoutes,
  ...tusRoutes,
  ...mediaRoutes,
  ...userRoutes,
  ...reportRoutes,
  ...webhookRoutes,
  ...linkRoutes,
  ...folderRoutes,
  ...tagRoutes,
  ...profileRoutes,
  ...socialRoutes,
  ...accountRoutes,
  ...factorRoutes,
];
