/**
 * Which driver and system errors mean "a dependency is away" rather than "our bug"
 * (docs/faults.md): one DependencyUnavailable, answered 503 `unavailable` everywhere and
 * counted in the outage log instead of a stack trace per request.
 */
import { DomainError, isDomainError } from "@/lib/errors";
import { countRefused, type Dependency, markDown, markUp } from "./outages";

/** A short outage is over by then, a long one costs a retry every few seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const MESSAGES: Record<Dependency, string> = {
  database: "The database is not answering; retry later.",
  redis: "A service this request needs is not answering; retry later.",
  storage: "The file storage is full or not answering; retry later.",
};

export class DependencyUnavailable extends DomainError {
  constructor(
    public readonly dependency: Dependency,
    public readonly original?: unknown,
  ) {
    super("unavailable", MESSAGES[dependency], 503, undefined, UNAVAILABLE_RETRY_AFTER_SECONDS);
    this.name = "DependencyUnavailable";
  }
}

export const isDependencyUnavailable = (error: unknown): error is DependencyUnavailable =>
  error instanceof DependencyUnavailable || (isDomainError(error) && (error as { dependency?: unknown }).dependency !== undefined);

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EPIPE", "EAI_AGAIN", "ENOTFOUND"]);
const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);
/** S3-compatible stores saying "no room" (MinIO's full drives, quotas, HTTP 507); AWS S3 itself never fills. */
const S3_FULL = new Set(["XMinioStorageFull", "XMinioAdminBucketQuotaExceeded", "QuotaExceeded", "InsufficientStorage"]);
const PRISMA_UNREACHABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const ADAPTER_UNREACHABLE = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** node-postgres's own connection errors carry no code. */
const PG_CONNECTION_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection closed|The server closed the connection)/i;

interface Shape {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  Code?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The dependency an error says is away, or null. `talkingTo` names it for errors that do not (a refused socket). */
export function faultOf(error: unknown, talkingTo?: Dependency): Dependency | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    if (isDependencyUnavailable(current)) return current.dependency;
    if (isDomainError(current)) return null;
    const shape = current as Shape;
    const code = typeof shape.code === "string" ? shape.code : undefined;
    const name = typeof shape.name === "string" ? shape.name : undefined;
    if (code && FULL_CODES.has(code)) return "storage";
    if (
      (name && S3_FULL.has(name)) ||
      (typeof shape.Code === "string" && S3_FULL.has(shape.Code)) ||
      shape.$metadata?.httpStatusCode === 507
    ) {
      return "storage";
    }
    if (code && PRISMA_UNREACHABLE.has(code)) return "database";
    const kind = (shape.cause as { kind?: unknown } | undefined)?.kind;
    if (name === "DriverAdapterError" && typeof kind === "string") {
      if (ADAPTER_UNREACHABLE.has(kind)) return "database";
      const original = (shape.cause as { originalCode?: unknown }).originalCode;
      // SQLite: the file's volume is full, or a lock held past the busy timeout.
      if (kind === "sqlite" && typeof original === "string" && /^SQLITE_(FULL|BUSY|LOCKED|IOERR)/.test(original)) return "database";
      return null;
    }
    if (talkingTo && code && SOCKET_CODES.has(code)) return talkingTo;
    if (talkingTo === "database" && typeof shape.message === "string" && PG_CONNECTION_MESSAGE.test(shape.message)) return "database";
    current = shape.cause;
  }
  return null;
}

/** For adapters to throw, so every caller above sees one domain error. */
export function asUnavailable(error: unknown, talkingTo?: Dependency): unknown {
  if (isDependencyUnavailable(error)) return error;
  const dependency = faultOf(error, talkingTo);
  if (!dependency) return error;
  markDown(dependency, error);
  return new DependencyUnavailable(dependency, error);
}

/** For the surfaces: the 503 to answer when the error is a dependency's, else null. */
export function refusalFor(error: unknown): DependencyUnavailable | null {
  const unavailable = asUnavailable(error);
  if (!isDependencyUnavailable(unavailable)) return null;
  countRefused(unavailable.dependency);
  return unavailable;
}

/** A storage write, told to the outage log; `remote` (S3): a refused or broken connection is the store being away too. */
export async function storing<T>(write: () => Promise<T>, remote = false): Promise<T> {
  const startedAt = Date.now();
  try {
    const result = await write();
    markUp("storage", startedAt);
    return result;
  } catch (error) {
    throw asUnavailable(error, remote ? "storage" : undefined);
  }
}
