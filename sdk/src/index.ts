/**
 * Mediahost's TypeScript client, for Node 20+ and browsers (docs/sdk.md). Node code that
 * uploads from disk imports `fromPath` from `sdk/src/node.ts`, which re-exports all of this.
 */
export {
  createApiClient,
  guestUpload,
  type ApiClient,
  type GuestUploadOptions,
  type GuestUploadReply,
  type ApiClientOptions,
  type ApiPaths,
  type UploadReply,
  type AddFilesReply,
  type ConvertTarget,
  type ConvertedFile,
} from "./api.js";
export {
  createRelayClient,
  signIn,
  register,
  type RelayClient,
  type RelayClientOptions,
  type RelayPaths,
  type RelaySession,
  type SignInReply,
} from "./relay.js";
export { MediaHostError, isMediaHostError, type ErrorType, type MediaHostErrorType } from "./errors.js";
export type { FileSource, UploadSource, UploadOptions, AddFilesOptions } from "./upload.js";
export type { TypedClient, PagedPath, ItemOf, PageOf, Reply } from "./client.js";
export type { components as ApiComponents } from "./generated/api.js";
export type { components as RelayComponents } from "./generated/relay.js";

import type { components } from "./generated/api.js";
/** The post object of interface.md. */
export type Post = components["schemas"]["Post"];
