// @ts-check
import { PHASE_PRODUCTION_BUILD } from "next/constants.js";

/** @param {string} phase @returns {import("next").NextConfig} */
const nextConfig = (phase) => ({
  reactStrictMode: true,
  poweredByHeader: false,
  // Next 16 streams metadata into <body> unless the user agent is a known "HTML-limited"
  // bot. Link unfurlers beyond the default list (Mastodon, Matrix, ...) read only <head>,
  // so every client gets blocking metadata in <head>.
  htmlLimitedBots: /.*/,
  // The API router answers trailing slashes itself, always as JSON (ShareX and friends
  // fail on an HTML redirect); Next's own 308 redirect would get there first.
  skipTrailingSlashRedirect: true,
  // `npm start` builds on the operator's machine: a type error anywhere in the project
  // (a test, a script) must not stop the server from starting. Types are checked by
  // `npm run typecheck`, which CI runs.
  typescript: { ignoreBuildErrors: true },
  // Load each page's server code when it is first requested rather than all at start:
  // the API, Relay and files never need them (the custom server serves those), and an
  // instance that only ever renders share pages should not hold the dashboard's code. A
  // server-start option only: left out of the build, which would list it as an experiment
  // with a red mark on every first start (issue 38 §3, a quiet first start).
  ...(phase === PHASE_PRODUCTION_BUILD ? {} : { experimental: { preloadEntriesOnStart: false } }),
  // Native addons and the Prisma runtime are loaded from node_modules at run time rather
  // than bundled: native .node files and the schema-engine wasm cannot be bundled.
  serverExternalPackages: [
    "better-sqlite3",
    "sharp",
    "pg",
    "@prisma/client",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "@prisma/driver-adapter-utils",
    "@prisma/schema-engine-wasm",
    // They find their ffmpeg/ffprobe binary next to their own files, which bundling breaks.
    "@ffmpeg-installer/ffmpeg",
    "@ffprobe-installer/ffprobe",
    "@aws-sdk/client-s3",
    "busboy",
  ],
});

export default nextConfig;
