/**
 * A readable device name for a Relay session ("Chrome on Windows", "Relay on iPhone"),
 * shown in GET /sessions so the owner can tell their sign-ins apart and revoke the right
 * one. Derived from the User-Agent when the client does not name itself (`device` field).
 *
 * Deliberately small: a name only has to be recognisable, not exact, so this matches the
 * handful of tokens that decide it instead of pulling in a full UA database. Order
 * matters: Edge, Opera and Samsung Internet also claim to be Chrome and Safari; Chrome
 * also claims to be Safari; Android also claims to be Linux.
 */
import { SESSION_NAME_MAX_LENGTH } from "./sessions";

/** Used when there is neither a `device` field nor a User-Agent worth reading. */
export const UNKNOWN_DEVICE = "Unknown device";

const PLATFORMS: readonly [RegExp, string][] = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\biPod\b/, "iPod"],
  [/\bAndroid\b/i, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b|\bWin(?:32|64)\b/, "Windows"],
  // Not "Darwin": iOS apps send it too (with CFNetwork), so it does not say which device.
  [/\bMac OS X\b|\bMacintosh\b|\bmacOS\b/, "macOS"],
  [/\biOS\b/, "iPhone"],
  [/\bLinux\b|\bX11\b|\bUbuntu\b|\bFedora\b/, "Linux"],
];

/** Non-browser clients first: our own app, uploaders and HTTP libraries. */
const APPS: readonly [RegExp, string][] = [
  [/^Relay\//i, "Relay"],
  [/\bShareX\//, "ShareX"],
  [/\bchatterino/i, "Chatterino"],
  [/\bShortcuts\//, "Shortcuts"],
  [/^curl\//, "curl"],
  [/^Wget\//i, "Wget"],
  [/^okhttp\//i, "Android app"],
  [/^Dart\//, "Flutter app"],
  [/^python-requests\/|^Python-urllib\/|^aiohttp\//, "Python script"],
  [/^node-fetch\/|^undici\b|^axios\//, "Node.js script"],
  [/^PostmanRuntime\//, "Postman"],
  [/^Insomnia\//, "Insomnia"],
];

const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bVivaldi\//, "Vivaldi"],
  [/\bYaBrowser\//, "Yandex Browser"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const firstMatch = (ua: string, table: readonly [RegExp, string][]): string | undefined => table.find(([pattern]) => pattern.test(ua))?.[1];

/**
 * The `device` name the client sent (trimmed), else a name read from `userAgent`.
 * Never empty and never longer than a session name may be.
 */
export function deviceName(userAgent: string | null | undefined, device?: string | null): string {
  const given = device?.trim();
  if (given) return given.slice(0, SESSION_NAME_MAX_LENGTH);

  const ua = (userAgent ?? "").trim().slice(0, 512);
  if (!ua) return UNKNOWN_DEVICE;
  const platform = firstMatch(ua, PLATFORMS);
  const client = firstMatch(ua, APPS) ?? firstMatch(ua, BROWSERS) ?? productName(ua);
  if (client && platform) return `${client} on ${platform}`;
  return client ?? platform ?? UNKNOWN_DEVICE;
}

/**
 * The leading product token of an unknown client ("MyUploader/2.1 CFNetwork/..." →
 * "MyUploader"): what the owner most likely recognises. "Mozilla" says nothing (every
 * browser and bot sends it). Only safe characters, so the name stays readable.
 */
function productName(ua: string): string | undefined {
  const product = /^([A-Za-z][A-Za-z0-9 ._-]{0,39})\//.exec(ua)?.[1]?.trim();
  return product && product !== "Mozilla" ? product : undefined;
}
