/** SigV4 presigned GET URLs (lib/storage/presign.ts) against AWS's published example. */
import { describe, expect, it } from "vitest";
import { presignGet } from "@/lib/storage/presign";
import { S3Storage, type S3StorageConfig } from "@/lib/storage/s3";

// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", Amazon S3 API
// Reference: the example GET of examplebucket/test.txt and the signature it gives.
const EXAMPLE = {
  url: "https://examplebucket.s3.amazonaws.com/test.txt",
  region: "us-east-1",
  credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  expiresIn: 86_400,
  now: new Date("2013-05-24T00:00:00Z"),
};

describe("presignGet", () => {
  it("gives AWS's example URL and signature", () => {
    expect(presignGet(EXAMPLE)).toBe(
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
        "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
        "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
        "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    );
  });

  it("signs response overrides and a session token as encoded, sorted query parameters", () => {
    const url = new URL(
      presignGet({
        ...EXAMPLE,
        credentials: { ...EXAMPLE.credentials, sessionToken: "token/with+chars=" },
        query: { "response-content-type": "text/plain; charset=utf-8", "response-content-disposition": `attachment; filename="a b.txt"` },
      }),
    );
    const names = [...url.searchParams.keys()];
    expect(names.slice(0, -1)).toEqual([...names.slice(0, -1)].sort());
    expect(names.at(-1)).toBe("X-Amz-Signature");
    expect(url.searchParams.get("response-content-disposition")).toBe(`attachment; filename="a b.txt"`);
    expect(url.searchParams.get("X-Amz-Security-Token")).toBe("token/with+chars=");
    // Spaces are %20 (never +) and reserved characters are encoded, as SigV4 canonicalises them.
    expect(url.search).toContain("response-content-type=text%2Fplain%3B%20charset%3Dutf-8");
    // A different override is a different signature: S3 would refuse a changed one.
    const plain = new URL(presignGet(EXAMPLE));
    expect(url.searchParams.get("X-Amz-Signature")).not.toBe(plain.searchParams.get("X-Amz-Signature"));
  });

  it("refuses lifetimes S3 refuses", () => {
    for (const expiresIn of [0, -1, 1.5, 604_801]) expect(() => presignGet({ ...EXAMPLE, expiresIn })).toThrow(RangeError);
    expect(() => presignGet({ ...EXAMPLE, expiresIn: 604_800 })).not.toThrow();
  });
});

describe("S3Storage.directUrl", () => {
  const keys = { accessKeyId: "AK", secretAccessKey: "SECRET" };
  const presigned = { kind: "presigned", expiresIn: 60, now: new Date("2026-01-01T00:00:00Z"), responseHeaders: {} } as const;
  const urlOf = async (config: Omit<S3StorageConfig, "accessKeyId" | "secretAccessKey">, key = "f/ab/c.jpg") => {
    const store = new S3Storage({ ...config, ...keys });
    try {
      return new URL(await store.directUrl(key, presigned));
    } finally {
      store.client.destroy();
    }
  };

  it("addresses the object as the SDK does: bucket in the host on AWS, path style on an endpoint or a dotted bucket", async () => {
    const aws = await urlOf({ bucket: "media", region: "eu-west-1" });
    expect(aws.origin + aws.pathname).toBe("https://media.s3.eu-west-1.amazonaws.com/f/ab/c.jpg");
    expect(aws.searchParams.get("X-Amz-Credential")).toBe("AK/20260101/eu-west-1/s3/aws4_request");
    const dotted = await urlOf({ bucket: "media.example.com" });
    expect(dotted.origin + dotted.pathname).toBe("https://s3.us-east-1.amazonaws.com/media.example.com/f/ab/c.jpg");
    const minio = await urlOf({ bucket: "media", endpoint: "http://127.0.0.1:9000", prefix: "site" });
    expect(minio.origin + minio.pathname).toBe("http://127.0.0.1:9000/media/site/f/ab/c.jpg");
    const hosted = await urlOf({ bucket: "media", endpoint: "https://r2.example.com", forcePathStyle: false });
    expect(hosted.origin + hosted.pathname).toBe("https://media.r2.example.com/f/ab/c.jpg");
  });

  it("a public URL is the base plus the prefixed key, unsigned", async () => {
    const store = new S3Storage({ bucket: "media", prefix: "site/", ...keys });
    try {
      expect(await store.directUrl("f/ab/c.jpg", { kind: "public", base: "https://cdn.example.com" })).toBe(
        "https://cdn.example.com/site/f/ab/c.jpg",
      );
    } finally {
      store.client.destroy();
    }
  });
});
