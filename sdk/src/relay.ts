/**
 * The Relay client (`/relay`, header `relay-key`) and Relay sign-in: `signIn` and
 * `register` trade a username and password for a relay-key (a session, listed by
 * `GET /sessions`) and return a client that uses it (docs/sdk.md).
 */
import { fileCalls, type ApiClient } from "./api.js";
import { createTypedClient, trimBase, type Reply, type TypedClient } from "./client.js";
import type { paths as RelayPaths } from "./generated/relay.js";
import { MediaHostError } from "./errors.js";

export type { RelayPaths };
type LoginBody = NonNullable<RelayPaths["/auth/login"]["post"]["requestBody"]>["content"]["application/json"];
type RegisterBody = NonNullable<RelayPaths["/auth/register"]["post"]["requestBody"]>["content"]["application/json"];
export type SignInReply = Reply<RelayPaths["/auth/login"]["post"]>;

export interface RelayClientOptions {
  /** Base URL of Relay, e.g. `https://media.example.com/relay` (the service's RELAY_URL). */
  baseUrl: string;
  /** A relay-key from `signIn` or `register`. */
  relayKey: string;
  fetch?: typeof globalThis.fetch;
}

/** Relay's typed calls, plus upload, add-files and convert, which Relay serves too. */
export interface RelayClient extends TypedClient<RelayPaths>, Pick<ApiClient, "upload" | "addFiles" | "convert"> {}

export function createRelayClient(options: RelayClientOptions): RelayClient {
  const client = createTypedClient<RelayPaths>({
    baseUrl: trimBase(options.baseUrl),
    headers: { "relay-key": options.relayKey },
    fetch: options.fetch,
  });
  return { ...client, ...fileCalls(client) };
}

export interface SignInOptions {
  baseUrl: string;
  fetch?: typeof globalThis.fetch;
}

/** A signed-in session: its key (store it), the session row, and a client using the key. */
export interface RelaySession extends SignInReply {
  client: RelayClient;
}

/** `POST /auth/login`: username or email and password. Wrong credentials: MediaHostError `unauthorized`. */
export async function signIn(options: SignInOptions & LoginBody): Promise<RelaySession> {
  const { baseUrl, fetch, ...body } = options;
  return withClient(await authCall(baseUrl, fetch, "/auth/login", body), baseUrl, fetch);
}

/** `POST /auth/register`, when the service's REGISTRATION allows it (`invite` for invite-only). */
export async function register(options: SignInOptions & RegisterBody): Promise<RelaySession> {
  const { baseUrl, fetch, ...body } = options;
  return withClient(await authCall(baseUrl, fetch, "/auth/register", body), baseUrl, fetch);
}

async function authCall(
  baseUrl: string,
  fetch: typeof globalThis.fetch | undefined,
  path: "/auth/login" | "/auth/register",
  body: LoginBody | RegisterBody,
): Promise<SignInReply> {
  // No key header: these two endpoints ignore keys (auth "none" in the route table).
  const anonymous = createTypedClient<RelayPaths>({ baseUrl: trimBase(baseUrl), headers: {}, fetch });
  const { data, error, response } = await anonymous.raw.POST(path, { body: body as RegisterBody });
  if (!response.ok || !data) throw MediaHostError.fromResponse(response, error);
  return data;
}

function withClient(reply: SignInReply, baseUrl: string, fetch: typeof globalThis.fetch | undefined): RelaySession {
  return { ...reply, client: createRelayClient({ baseUrl, relayKey: reply.key, fetch }) };
}
