/**
 * Uploader configurations for an app's key (shared/notes/clients.md). They upload `unlisted`:
 * the default, private, would give everyone but the uploader a 404. Deletion links confirm
 * and delete on POST only: chat unfurlers follow every link with a GET.
 */
import { env, type UploadFiles } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";
import { DOMAIN_HEADER } from "@/lib/domains/domains";

export interface UploaderUrls {
  /** `{base_url}` of the API: uploads go to `${apiUrl}/upload`. */
  apiUrl: string;
  /** The service's origin; the delete confirmation page is `${publicUrl}/dashboard/delete/{code}`. */
  publicUrl: string;
}

export interface ClientConfigOptions {
  appName?: string;
  urls?: UploaderUrls;
  uploadFiles?: UploadFiles;
  /** A domain of DOMAINS the uploads choose (`x-mediahost-domain`, docs/domains.md); absent: the account's default. */
  domain?: string;
}

/**
 * ShareX picks a destination by extension alone and sends screen recordings to the File
 * uploader, so that one is always registered (without it a ShareX user's clips never arrived);
 * a refused kind comes back as the config's ErrorMessage (shared/notes/clients.md).
 */
export function sharexDestinations(allowed: UploadFiles): string {
  const destinations = ["ImageUploader"];
  if (allowed !== "media") destinations.push("TextUploader");
  destinations.push("FileUploader");
  return destinations.join(", ");
}

export interface SharexConfig {
  Version: string;
  Name: string;
  DestinationType: string;
  RequestMethod: "POST";
  RequestURL: string;
  Headers: Record<string, string>;
  Body: "MultipartFormData";
  FileFormName: string;
  URL: string;
  ThumbnailURL: string;
  DeletionURL: string;
  ErrorMessage: string;
}

export interface ChatterinoConfig {
  request_url: string;
  form_field: string;
  extra_headers: string;
  image_link: string;
  deletion_link: string;
}

export interface FlameshotConfig {
  script: string;
}

/** ShareX refuses configs older than 14 and reads `{json:...}` templates only from 14 on. */
export const SHAREX_VERSION = "16.1.0";
const UPLOAD_PRIVACY = "unlisted";

function defaultUrls(): UploaderUrls {
  const current = env();
  return { apiUrl: current.apiUrl, publicUrl: current.PUBLIC_URL };
}

/**
 * Keys are embedded in JSON, a header list and a shell script. Ours are always
 * [A-Za-z0-9_-] (lib/crypto/keys.ts); anything else would be template syntax to ShareX, a
 * separator to Chatterino, or shell code, so it is refused rather than escaped.
 */
function checkKey(key: string): string {
  const value = key.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(value)) {
    throw new DomainError("invalid_request", "An API key consists of letters, digits, '_' and '-' only.");
  }
  return value;
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

function uploaderName(urls: UploaderUrls, appName: string | undefined): string {
  const host = hostOf(urls.publicUrl);
  return appName ? `${host} (${appName})` : host;
}

export function sharexConfig(key: string, options: ClientConfigOptions = {}): SharexConfig {
  const apiKey = checkKey(key);
  const urls = options.urls ?? defaultUrls();
  return {
    Version: SHAREX_VERSION,
    Name: options.domain ? `${options.domain} (${options.appName ?? hostOf(urls.publicUrl)})` : uploaderName(urls, options.appName),
    DestinationType: sharexDestinations(options.uploadFiles ?? env().UPLOAD_FILES),
    RequestMethod: "POST",
    RequestURL: `${urls.apiUrl}/upload`,
    Headers: { "api-key": apiKey, "post-privacy": UPLOAD_PRIVACY, ...(options.domain ? { [DOMAIN_HEADER]: options.domain } : {}) },
    Body: "MultipartFormData",
    FileFormName: "file",
    // The share page: it unfurls in chat; the direct file stays available as the thumbnail.
    URL: "{json:post.url}",
    ThumbnailURL: "{json:url}",
    DeletionURL: `${urls.publicUrl}/dashboard/delete/{json:post.code}`,
    ErrorMessage: "{json:error.type}: {json:error.message}",
  };
}

export function chatterinoConfig(key: string, options: ClientConfigOptions = {}): ChatterinoConfig {
  const apiKey = checkKey(key);
  const urls = options.urls ?? defaultUrls();
  return {
    request_url: `${urls.apiUrl}/upload`,
    form_field: "file",
    extra_headers: `api-key: ${apiKey};post-privacy: ${UPLOAD_PRIVACY}`,
    // Chatterino patterns are dot paths without the `json:` prefix.
    image_link: "{post.url}",
    deletion_link: `${urls.publicUrl}/dashboard/delete/{post.code}`,
  };
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

export function flameshotScript(key: string, options: ClientConfigOptions = {}): FlameshotConfig {
  const apiKey = checkKey(key);
  const urls = options.urls ?? defaultUrls();
  const script = `#!/bin/sh
# Capture a region with Flameshot, upload it to ${hostOf(urls.publicUrl)}, copy the link.
# Needs flameshot and curl; uses jq when installed, and wl-copy, xclip or xsel for the clipboard.
set -eu

for tool in flameshot curl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed" >&2; exit 1; }
done

UPLOAD_URL=${shellQuote(`${urls.apiUrl}/upload`)}
API_KEY=${shellQuote(apiKey)}

shot=$(mktemp "\${TMPDIR:-/tmp}/flameshot-XXXXXX")
trap 'rm -f "$shot"' EXIT INT TERM

# -r writes the PNG to stdout; an empty file means the capture was cancelled.
flameshot gui -r > "$shot" || exit 0
[ -s "$shot" ] || exit 0

if ! response=$(curl -sS -f -H "api-key: $API_KEY" -H "post-privacy: ${UPLOAD_PRIVACY}" \\
    -F "file=@$shot;filename=screenshot.png;type=image/png" "$UPLOAD_URL"); then
  echo "upload failed" >&2
  exit 1
fi

if command -v jq >/dev/null 2>&1; then
  link=$(printf '%s' "$response" | jq -r '.post.url // empty')
else
  # Without jq (the API sends compact JSON): the first "url" directly inside "post".
  link=$(printf '%s' "$response" | sed -n 's/.*"post"[[:space:]]*:[[:space:]]*{[^{}]*"url"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p')
fi
if [ -z "$link" ]; then
  echo "unexpected response: $response" >&2
  exit 1
fi

if [ -n "\${WAYLAND_DISPLAY:-}" ] && command -v wl-copy >/dev/null 2>&1; then
  printf '%s' "$link" | wl-copy
elif command -v xclip >/dev/null 2>&1; then
  printf '%s' "$link" | xclip -selection clipboard
elif command -v xsel >/dev/null 2>&1; then
  printf '%s' "$link" | xsel --clipboard --input
elif command -v wl-copy >/dev/null 2>&1; then
  printf '%s' "$link" | wl-copy
fi
printf '%s\\n' "$link"
`;
  return { script };
}

export function curlCommand(key: string, options: ClientConfigOptions = {}): string {
  const apiKey = checkKey(key);
  const urls = options.urls ?? defaultUrls();
  return `curl -sS -H ${shellQuote(`api-key: ${apiKey}`)} -H 'post-privacy: ${UPLOAD_PRIVACY}' -F 'file=@screenshot.png' ${shellQuote(`${urls.apiUrl}/upload`)}`;
}

/** A ShareX URL shortener (one custom uploader has one request, so it is a config of its own). */
export interface SharexLinksConfig {
  Version: string;
  Name: string;
  DestinationType: "URLShortener";
  RequestMethod: "POST";
  RequestURL: string;
  Headers: Record<string, string>;
  Body: "JSON";
  Data: string;
  URL: string;
  ErrorMessage: string;
}

/**
 * ShareX's URL shortener for POST /links (docs/short-links.md). The URL to shorten arrives
 * only through `{input}`; in a JSON body ShareX replaces it JSON-escaped (after its name
 * parser has run on the rest), so any URL survives unchanged.
 */
export function sharexLinksConfig(key: string, options: ClientConfigOptions = {}): SharexLinksConfig {
  const apiKey = checkKey(key);
  const urls = options.urls ?? defaultUrls();
  return {
    Version: SHAREX_VERSION,
    Name: `${uploaderName(urls, options.appName)} links`,
    DestinationType: "URLShortener",
    RequestMethod: "POST",
    RequestURL: `${urls.apiUrl}/links`,
    Headers: { "api-key": apiKey },
    Body: "JSON",
    Data: '{"url":"{input}"}',
    URL: "{json:link.short_url}",
    ErrorMessage: "{json:error.type}: {json:error.message}",
  };
}
