/**
 * The SDK as a package (docs/sdk.md, "As a package"): built by `npm run sdk:build`, packed
 * with `npm pack`, installed from the tarball into a new project with the registry out of
 * reach (the package has no dependencies), then a script that imports `@mediahost/sdk` is
 * type-checked under `moduleResolution: nodenext` and `bundler`, compiled, and run with
 * plain Node against a live server: upload from disk, read, page, and typed errors
 * (403 without gallery access, 404).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverUser, serverApp } from "../support/server-accounts";

vi.setConfig({ testTimeout: 240_000 });

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");
let server: TestServer;
let project: string;

const SCRIPT = `import { createApiClient, isMediaHostError, MediaHostError } from "@mediahost/sdk";
import { fromPath, type ApiComponents } from "@mediahost/sdk/node";

const [baseUrl, galleryKey, plainKey, file] = process.argv.slice(2);
const api = createApiClient({ baseUrl, apiKey: galleryKey });
const reply = await api.upload(await fromPath(file), { privacy: "unlisted" });
if (!("post" in reply)) throw new Error("one file, one post");
const post: ApiComponents["schemas"]["Post"] = (await api.get("/posts/{code}", { params: { path: { code: reply.post.code } } })).post;
console.log("read", post.code, post.privacy);
const codes: string[] = [];
for await (const item of api.paginate("/posts", { params: { query: { limit: 1 } } })) codes.push(item.code);
console.log("paged", codes.join(","));
try {
  for await (const _ of createApiClient({ baseUrl, apiKey: plainKey }).paginate("/posts")) break;
} catch (error) {
  if (!isMediaHostError(error, "forbidden")) throw error;
  console.log("forbidden", error.status);
}
try {
  await api.get("/posts/{code}", { params: { path: { code: "nosuchpost" } } });
} catch (error) {
  if (!(error instanceof MediaHostError)) throw error;
  console.log("error", error.type, error.status, error.requestId?.length);
}
`;

beforeAll(async () => {
  server = await startTestServer();
  project = mkdtempSync(join(tmpdir(), "mediahost-sdk-package-"));
  await run(process.execPath, ["--import", "tsx", "scripts/sdk-build.ts"], { cwd: root });
  await run("npm", ["pack", "--pack-destination", project], { cwd: join(root, "sdk") });
}, 600_000);
afterAll(async () => {
  await server?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

it("installs from its tarball offline, type-checks under nodenext and bundler, and runs against the server", async () => {
  const tarball = readdirSync(project).find((name) => name.endsWith(".tgz"))!;
  expect(tarball).toBe("mediahost-sdk-3.0.0.tgz");
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "sdk-user", private: true, type: "module" }));
  // --offline: a dependency the tarball does not carry would fail here instead of downloading.
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", `./${tarball}`], { cwd: project });
  await writeFile(join(project, "use-sdk.ts"), SCRIPT);
  const common = ["--strict", "--target", "es2022", "--types", "node", "--typeRoots", join(root, "node_modules/@types"), "use-sdk.ts"];
  // Under nodenext the check also writes the script that runs below (tsc fails on a type
  // error whether or not it emits); under bundler it only checks.
  for (const resolution of [
    ["--module", "nodenext", "--moduleResolution", "nodenext", "--outDir", "out"],
    ["--module", "esnext", "--moduleResolution", "bundler", "--noEmit"],
  ]) {
    await run(process.execPath, [tsc, ...resolution, ...common], { cwd: project }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc ${resolution.join(" ")}:\n${error.stdout}`);
    });
  }

  const user = await serverUser(server, "sdkpackage", "free");
  expect(user.id).toBeTruthy();
  const gallery = (await serverApp(server, "sdkpackage", "g", { galleryAccess: true })).key as string;
  const plain = (await serverApp(server, "sdkpackage", "p")).key as string;
  const { stdout } = await run(process.execPath, ["out/use-sdk.js", `${server.url}/api`, gallery, plain, await fixture("pngPlain")], {
    cwd: project,
  });
  const lines = stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^read [A-Za-z0-9]{10} unlisted$/);
  expect(lines[1]).toBe(`paged ${lines[0].split(" ")[1]}`);
  expect(lines[2]).toBe("forbidden 403");
  expect(lines[3]).toBe("error not_found 404 32");
});
