/**
 * Presigned S3 GET URLs (SigV4 in the query string) for the redirect delivery mode
 * (docs/delivery-offload.md). Written here, not taken from @aws-sdk/s3-request-presigner: a GET
 * URL is one HMAC chain. Checked against AWS's published example in tests/storage/presign.test.ts.
 */
import { createHash, createHmac } from "node:crypto";

export interface PresignCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (an IAM role's) sign with their token. */
  sessionToken?: string;
}

export interface PresignRequest {
  url: string;
  region: string;
  credentials: PresignCredentials;
  /** 1 to 604 800 (S3's limit, a week). */
  expiresIn: number;
  now: Date;
  query?: Readonly<Record<string, string>>;
}

const MAX_EXPIRES = 604_800;

/** RFC 3986 encoding, as SigV4 wants it: everything but unreserved characters, `/` too. */
const encode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();
const sha256Hex = (data: string): string => createHash("sha256").update(data, "utf8").digest("hex");

const amzDate = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** Valid for GET only (S3 checks the method). */
export function presignGet(request: PresignRequest): string {
  const { region, credentials, expiresIn } = request;
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES) {
    throw new RangeError(`A presigned URL lives 1 to ${MAX_EXPIRES} seconds, not ${expiresIn}`);
  }
  const url = new URL(request.url);
  const timestamp = amzDate(request.now);
  const day = timestamp.slice(0, 8);
  const scope = `${day}/${region}/s3/aws4_request`;
  const params: Record<string, string> = {
    ...request.query,
    "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
    "X-Amz-Credential": `${credentials.accessKeyId}/${scope}`,
    "X-Amz-Date": timestamp,
    "X-Amz-Expires": String(expiresIn),
    "X-Amz-SignedHeaders": "host",
    ...(credentials.sessionToken ? { "X-Amz-Security-Token": credentials.sessionToken } : {}),
  };
  // Sorted by encoded name (code point order), each name and value encoded once.
  const query = Object.entries(params)
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  // S3 paths are encoded once, segment by segment (URL already percent-encodes what it must
  // not leave as is; decoding first makes the encoding ours).
  const path = url.pathname
    .split("/")
    .map((segment) => encode(decodeURIComponent(segment)))
    .join("/");
  const canonical = ["GET", path, query, `host:${url.host}\n`, "host", "UNSIGNED-PAYLOAD"].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", timestamp, scope, sha256Hex(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), "s3"), "aws4_request");
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  return `${url.origin}${path}?${query}&X-Amz-Signature=${signature}`;
}
