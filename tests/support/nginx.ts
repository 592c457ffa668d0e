/**
 * Debian's nginx (/usr/sbin/nginx, installed by .ci/run) as a child process in front of a
 * test or bench server: a generated configuration on a free port, one process (no master,
 * no daemon), its temporary files and log in a folder of its own, removed on stop.
 *
 * The proxy, offload and cache locations are the ones docs/operations.md gives operators
 * (`offloadLocation`, `cachePath` and `cacheLocation` are the same blocks: the proxy-cache
 * test checks the doc holds them verbatim), so the tests check what the documentation says.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./server";

export const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

export interface Nginx {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  pid: number;
  /** What nginx printed (its error log). */
  output(): string;
  stop(): Promise<void>;
}

export interface NginxOptions {
  /** The service behind `location /` (http://127.0.0.1:port). */
  upstream?: string;
  /** With upstream: the internal location for DELIVERY_OFFLOAD=x-accel, serving this folder (DATA_DIR/files). */
  offload?: { prefix: string; filesDir: string };
  /** Locations serving a folder directly (the bench's reference): URL prefix → folder. */
  direct?: Record<string, string>;
  /** Headers the direct locations add (the bench copies the service's so both sides send alike). */
  directHeaders?: Record<string, string>;
  /** With upstream: /cdn/ through nginx's proxy cache (docs/operations.md, "Caching public files"). */
  cache?: boolean;
}

/** The headers of ours that nginx does not pass on by itself after X-Accel-Redirect (checked by tests/delivery/offload-nginx.test.ts). */
export const PASSED_HEADERS = [
  "ETag",
  "X-Content-Type-Options",
  "Content-Security-Policy",
  "Cross-Origin-Resource-Policy",
  "Access-Control-Allow-Origin",
  "Request-Id",
] as const;

/** The internal location of the offload mode: the file under DATA_DIR/files, with the service's headers. */
export function offloadLocation(prefix: string, filesDir: string, indent = "    "): string {
  const variable = (name: string): string => `$upstream_http_${name.toLowerCase().replace(/-/g, "_")}`;
  return [
    `location ${prefix} {`,
    "    internal;",
    `    alias ${filesDir.replace(/\/?$/, "/")};`,
    "    # The service has judged the validators already (304s are its own): nginx adds none of its own.",
    "    etag off;",
    "    if_modified_since off;",
    ...PASSED_HEADERS.map((name) => `    add_header ${name} ${variable(name)};`),
    "    tcp_nopush off;",
    "}",
  ]
    .map((line) => indent + line)
    .join("\n");
}

/** The cache's zone (http level): where nginx keeps the files the service lets it keep. */
export function cachePath(folder: string, indent = ""): string {
  return `${indent}proxy_cache_path ${folder} levels=1:2 keys_zone=mediahost_files:10m max_size=10g inactive=7d use_temp_path=off;`;
}

/**
 * /cdn/ through the cache: a public file is kept for the service's `s-maxage`
 * (SHARED_CACHE_SECONDS), then asked for again with its ETag; anything `private` is never kept.
 */
export function cacheLocation(indent = "    "): string {
  return [
    "location /cdn/ {",
    "    proxy_pass http://mediahost;",
    "    proxy_http_version 1.1;",
    '    proxy_set_header Connection "";',
    "    proxy_set_header Host $host;",
    "    proxy_set_header X-Forwarded-For $remote_addr;",
    "    proxy_set_header X-Forwarded-Proto $scheme;",
    "    # Public files for the service's s-maxage (SHARED_CACHE_SECONDS), then asked again with",
    "    # their ETag: a 304 keeps the copy, a refusal (private now, deleted, expired) replaces it.",
    "    # Private, signed, gated and expiring files are `private` and never stored.",
    "    proxy_cache mediahost_files;",
    "    proxy_cache_key $scheme$host$request_uri;",
    "    proxy_cache_revalidate on;",
    "    # One request fills a missing entry; the others wait for it rather than all reaching the service.",
    "    proxy_cache_lock on;",
    "    proxy_cache_lock_timeout 30s;",
    "    add_header X-Cache-Status $upstream_cache_status always;",
    "    # Not corked (Debian's nginx.conf sets tcp_nopush on): a cached response longer than one",
    "    # TCP segment then waited ~40 ms for the client's delayed ACK (docs/performance.md).",
    "    tcp_nopush off;",
    "}",
  ]
    .map((line) => indent + line)
    .join("\n");
}

function config(dir: string, port: number, options: NginxOptions): string {
  const lines = [
    "daemon off;",
    "master_process off;",
    "worker_processes 1;",
    `pid ${join(dir, "nginx.pid")};`,
    "error_log stderr notice;",
    "events { worker_connections 1024; }",
    "http {",
    "    access_log off;",
    "    sendfile on;",
    "    tcp_nopush on;",
    "    open_file_cache max=1000 inactive=60s;",
    "    types { image/jpeg jpg jpeg; video/mp4 mp4; }",
    "    default_type application/octet-stream;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `    ${name}_temp_path ${join(dir, name)};`),
  ];
  if (options.upstream) {
    lines.push(`    upstream mediahost { server ${new URL(options.upstream).host}; keepalive 64; }`);
    if (options.cache) lines.push(cachePath(join(dir, "cache"), "    "));
  }
  lines.push("    server {", `        listen 127.0.0.1:${port};`);
  for (const [prefix, folder] of Object.entries(options.direct ?? {})) {
    // Uncorked like the cache's location, so both sides of the bench's pair send alike.
    lines.push(`        location ${prefix} {`, `            alias ${folder.replace(/\/?$/, "/")};`, "            tcp_nopush off;");
    for (const [name, value] of Object.entries(options.directHeaders ?? {}))
      lines.push(`            add_header ${name} ${JSON.stringify(value)};`);
    lines.push("        }");
  }
  if (options.upstream) {
    lines.push(
      "        location / {",
      "            proxy_pass http://mediahost;",
      "            proxy_http_version 1.1;",
      '            proxy_set_header Connection "";',
      "            proxy_set_header Host $host;",
      "            proxy_set_header X-Forwarded-For $remote_addr;",
      "            proxy_buffering off;",
      "        }",
    );
    if (options.offload) lines.push(offloadLocation(options.offload.prefix, options.offload.filesDir, "        "));
    if (options.cache) lines.push(cacheLocation("        "));
  }
  lines.push("    }", "}");
  return `${lines.join("\n")}\n`;
}

/**
 * Starts nginx and resolves once it listens: it logs its getrlimit line after it has opened
 * its listening sockets (nginx's main(): the cycle, then the OS status), before serving.
 */
export async function startNginx(options: NginxOptions): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), "mediahost-nginx-"));
  const port = await freePort();
  const confPath = join(dir, "nginx.conf");
  writeFileSync(confPath, config(dir, port, options));
  const child: ChildProcess = spawn(NGINX, ["-p", dir, "-c", confPath, "-e", "stderr"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  await new Promise<void>((ready, fail) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (/getrlimit\(RLIMIT_NOFILE\)/.test(output)) ready();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", fail);
    void exited.then(() => fail(new Error(`nginx exited before it listened:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
