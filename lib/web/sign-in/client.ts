/** What a sign-in request tells about its client: headers, address, device name (next-auth hands providers a plain request). */
import { requestClientIp } from "@/lib/http/client-ip";
import { deviceName } from "@/lib/sessions/device-name";

/** The request next-auth gives a credentials provider's `authorize`. */
export type RequestLike = { headers?: Record<string, unknown> } | undefined;

export function header(req: RequestLike, name: string): string | null {
  const value = req?.headers?.[name];
  return typeof value === "string" ? value : null;
}

/** What the custom server put in x-client-ip (lib/server/server.ts). */
export function requestIp(req: RequestLike): string {
  return requestClientIp({ get: (name) => header(req, name) });
}

/** Sessions opened from the web are named so the owner can tell them from the apps'. */
export function webDeviceName(req: RequestLike): string {
  return `Web: ${deviceName(header(req, "user-agent"), undefined)}`.slice(0, 100);
}
