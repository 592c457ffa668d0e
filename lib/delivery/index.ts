/** Direct-file delivery: serving stored objects over HTTP and signed URLs for private files. */
export { serveObject, type ServeOptions } from "./serve";
export {
  SIGNED_URL_TTL_SECONDS,
  checkSignedUrl,
  nowSeconds,
  resetSigningSecret,
  signPath,
  signUrl,
  signingSecret,
  verifySignature,
  type SignedUrlCheck,
} from "@/lib/crypto/signing";
export { INLINE_TYPES, contentDisposition, resolveType } from "./headers";
