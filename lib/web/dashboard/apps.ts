/**
 * Apps and keys for the dashboard (docs/dashboard.md, "How the pieces fit": apps are created only
 * here). Plain serialisable data to the client; the key only in create and regenerate results.
 */
import { createApp, listApps, regenerateApp, revokeApp, setGalleryAccess, type AppRecord, type IssuedApp } from "@/lib/apps/apps";
import {
  chatterinoConfig,
  curlCommand,
  flameshotScript,
  sharexConfig,
  sharexLinksConfig,
  type ChatterinoConfig,
  type SharexConfig,
  type SharexLinksConfig,
} from "@/lib/apps/client-config";
import { env } from "@/lib/config/env";

export interface AppView {
  id: string;
  name: string;
  keyHint: string | null;
  galleryAccess: boolean;
  revoked: boolean;
  lastUsedAt: string | null;
  createdAt: string;
}

export interface UploaderSetup {
  key: string;
  sharexFileName: string;
  sharex: SharexConfig;
  /** ShareX's URL shortener: a second .sxcu, since one custom uploader has one request (docs/short-links.md). */
  sharexLinksFileName: string;
  sharexLinks: SharexLinksConfig;
  /** One ShareX uploader per domain the operator lists (docs/domains.md). */
  sharexDomains: { domain: string; fileName: string; config: SharexConfig }[];
  chatterino: ChatterinoConfig;
  flameshot: string;
  curl: string;
}

export interface IssuedAppView {
  app: AppView;
  setup: UploaderSetup;
}

export function appView(app: AppRecord): AppView {
  return {
    id: app.id,
    name: app.name,
    keyHint: app.keyHint,
    galleryAccess: app.galleryAccess,
    revoked: app.revokedAt !== null,
    lastUsedAt: app.lastUsedAt?.toISOString() ?? null,
    createdAt: app.createdAt.toISOString(),
  };
}

/** A file name safe on every OS: the app's name reduced to letters, digits and dashes. */
function sxcuName(appName: string, suffix = ""): string {
  const stem =
    appName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "uploader";
  return `mediahost-${stem}${suffix}.sxcu`;
}

export function uploaderSetup(key: string, appName: string): UploaderSetup {
  return {
    key,
    sharexFileName: sxcuName(appName),
    sharex: sharexConfig(key, { appName }),
    sharexLinksFileName: sxcuName(appName, "-links"),
    sharexLinks: sharexLinksConfig(key, { appName }),
    sharexDomains: env().DOMAINS.map(({ name }) => ({
      domain: name,
      fileName: sxcuName(appName, `-${name.replace(/[^a-z0-9]+/g, "-")}`),
      config: sharexConfig(key, { appName, domain: name }),
    })),
    chatterino: chatterinoConfig(key, { appName }),
    flameshot: flameshotScript(key, { appName }).script,
    curl: curlCommand(key, { appName }),
  };
}

const issuedView = ({ app, key }: IssuedApp): IssuedAppView => ({ app: appView(app), setup: uploaderSetup(key, app.name) });

export async function dashboardApps(userId: string): Promise<AppView[]> {
  return (await listApps(userId)).map(appView);
}

export async function createDashboardApp(userId: string, name: string, galleryAccess: boolean): Promise<IssuedAppView> {
  const trimmed = name.trim();
  return issuedView(await createApp({ userId, name: trimmed === "" ? undefined : trimmed, galleryAccess }));
}

export async function regenerateDashboardApp(userId: string, appId: string): Promise<IssuedAppView> {
  return issuedView(await regenerateApp(appId, { userId }));
}

export async function revokeDashboardApp(userId: string, appId: string): Promise<AppView> {
  return appView(await revokeApp(appId, { userId }));
}

export async function setDashboardGalleryAccess(userId: string, appId: string, on: boolean): Promise<AppView> {
  return appView(await setGalleryAccess(appId, on, { userId }));
}
