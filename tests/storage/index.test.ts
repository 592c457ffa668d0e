/** storage(): picking the adapter from STORAGE, the process-wide holder, setStorage. */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { DiskStorage, createStorage, setStorage, storage } from "@/lib/storage";

const VARS = ["STORAGE", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_ENDPOINT", "BLOB_READ_WRITE_TOKEN", "BLOB_ACCESS"];
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  resetEnv();
  setStorage(undefined);
});

describe("storage()", () => {
  it("defaults to disk under DATA_DIR/files and is one instance per process", () => {
    delete process.env.STORAGE;
    resetEnv();
    const s = storage();
    expect(s.kind).toBe("disk");
    expect((s as DiskStorage).root).toBe(join(process.env.DATA_DIR!, "files"));
    expect(storage()).toBe(s);
  });

  it("setStorage installs an adapter; undefined makes the next call read STORAGE again", () => {
    const custom = new DiskStorage("/tmp/elsewhere");
    setStorage(custom);
    expect(storage()).toBe(custom);
    setStorage(undefined);
    expect(storage()).not.toBe(custom);
  });

  it("STORAGE=s3 needs S3_BUCKET and both credentials or neither", () => {
    delete process.env.S3_BUCKET;
    expect(() => createStorage("s3")).toThrow(/S3_BUCKET/);
    process.env.S3_BUCKET = "b";
    process.env.S3_ACCESS_KEY_ID = "id";
    delete process.env.S3_SECRET_ACCESS_KEY;
    expect(() => createStorage("s3")).toThrow(/both/);
    process.env.S3_SECRET_ACCESS_KEY = "secret";
    expect(createStorage("s3").kind).toBe("s3");
  });

  it("an S3 adapter loads its SDK on first use and delegates to it", async () => {
    process.env.STORAGE = "s3";
    process.env.S3_BUCKET = "b";
    process.env.S3_ENDPOINT = "http://127.0.0.1:9";
    resetEnv();
    const s = storage();
    expect(s.kind).toBe("s3");
    // Rejected by the loaded adapter's key check, before any network request.
    await expect(s.stat("../escape.png")).rejects.toThrow(/Invalid storage key/);
  });

  it("STORAGE=blob needs BLOB_READ_WRITE_TOKEN; unknown kinds are refused", () => {
    delete process.env.BLOB_READ_WRITE_TOKEN;
    expect(() => createStorage("blob")).toThrow(/BLOB_READ_WRITE_TOKEN/);
    process.env.BLOB_READ_WRITE_TOKEN = "vercel_blob_rw_store_secret";
    expect(createStorage("blob").kind).toBe("blob");
    process.env.BLOB_ACCESS = "everyone";
    expect(() => createStorage("blob")).toThrow(/BLOB_ACCESS/);
    expect(() => createStorage("ftp")).toThrow(/STORAGE must be one of/);
  });
});
