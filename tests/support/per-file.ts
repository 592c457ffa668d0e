/**
 * Runs before every test file. Files share a worker process (vitest.config.ts turns module
 * isolation off: loading each file's module graph afresh was 91 s of the run's 605 s of CPU), so
 * whatever one file left in process.env or in a process-wide singleton would reach the next
 * file in the same worker. Each file starts from the worker's first environment, with a
 * DATA_DIR of its own, and with the singletons that derive from the environment forgotten.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { resetEnv } from "@/lib/config/env";
import { applyStoredValues } from "@/lib/config/stored-settings";
import { resetSigningSecret } from "@/lib/crypto/signing";
import { resetMediaLimiter } from "@/lib/media/limiter";
import { resetMediaConfig } from "@/lib/media/config";
import { resetOcrConfig } from "@/lib/media/tesseract";
import { setModerator } from "@/lib/moderation/moderator";
import { setCounterStore } from "@/lib/ratelimit";
import { setStorage } from "@/lib/storage";
import { resetPruneClock } from "@/lib/usage/hours";

const holder = globalThis as { __testWorkerEnv?: Readonly<Record<string, string | undefined>> };

// Shared, run-wide things (generated media fixtures) stay in TEST_RUN_DIR.
const root = process.env.TEST_RUN_DIR || process.env.DATA_DIR!;
process.env.TEST_RUN_DIR = root;
mkdirSync(root, { recursive: true });

const first = (holder.__testWorkerEnv ??= { ...process.env });
for (const name of Object.keys(process.env)) if (!(name in first)) delete process.env[name];
Object.assign(process.env, first);

// Each test file gets its own DATA_DIR inside the run's (files run in parallel workers, and
// checks such as "no temporary files left" must only see their own file's work).
process.env.DATA_DIR = mkdtempSync(join(root, "file-"));

// Settings a previous file stored (lib/settings) belong to its database, not this one.
applyStoredValues({});
resetEnv();
resetSigningSecret();
resetMediaConfig();
resetMediaLimiter();
resetOcrConfig();
resetPruneClock();
// The previous file's adapter: its cached descriptors (up to 256) would stay open for the
// worker's life.
setStorage(undefined)?.close?.();
setModerator(undefined);
setCounterStore(undefined);
