/**
 * A readable device name for a session ("Chrome on Windows"), from the User-Agent when the
 * client names none. Recognisable, not exact: a few tokens instead of a UA database. Order
 * matters: Edge, Opera and Samsung claim Chrome and Safari, Chrome claims Safari, Android Linux.
 */
import { SESSION_NAME_MAX_LENGTH } from "./sessions";

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

/** Never empty and never longer than a session name may be. */
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

/** The leading product token of an unknown client; "Mozilla" says nothing. Only safe characters. */
function productName(ua: string): string | undefined {
  const product = /^([A-Za-z][A-Za-z0-9 ._-]{0,39})\//.exec(ua)?.[1]?.trim();
  return product && product !== "Mozilla" ? product : undefined;
}
