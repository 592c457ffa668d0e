"use client";
/**
 * Shown once, right after a key is issued: the key with a copy button, the ShareX .sxcu
 * download, and the same settings for Flameshot, Chatterino and curl.
 */
import { useState } from "react";
import type { UploaderSetup } from "@/lib/web/dashboard/apps";
import { CopyButton } from "./copy-button";
import { muted, primaryButton, secondaryButton } from "./ui";

const TABS = ["ShareX", "Flameshot", "Chatterino", "curl"] as const;
type Tab = (typeof TABS)[number];

function downloadSxcu(config: object, fileName: string) {
  const blob = new Blob([JSON.stringify(config, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** "ImageUploader, TextUploader, FileUploader" → "image, text and file uploader": the words match what is registered. */
function destinationWords(destinations: string): string {
  const words = destinations.split(",").map((d) =>
    d
      .trim()
      .replace(/Uploader$/, "")
      .toLowerCase(),
  );
  const list = words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words[0];
  return `${list} uploader${words.length > 1 ? "s" : ""} (screen recordings go to the file uploader)`;
}

function Field({ name, value }: { name: string; value: string }) {
  return (
    <div className="space-y-1">
      <dt className="text-xs font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{name}</dt>
      <dd className="flex items-start gap-2">
        <code className="min-w-0 flex-1 break-all rounded bg-zinc-100 px-2 py-1.5 text-xs dark:bg-zinc-800">{value}</code>
        <CopyButton value={value} />
      </dd>
    </div>
  );
}

export function UploaderSetupPanel({ setup, appName }: { setup: UploaderSetup; appName: string }) {
  const [tab, setTab] = useState<Tab>("ShareX");
  return (
    <div
      className="space-y-4 rounded-lg border border-emerald-300 bg-emerald-50 p-4 dark:border-emerald-700 dark:bg-emerald-950/40"
      data-testid="issued-key"
    >
      <div className="space-y-2">
        <p className="font-medium">Key for {appName}: copy it now, it is shown only once.</p>
        <div className="flex flex-wrap items-center gap-2">
          <code
            className="min-w-0 flex-1 break-all rounded bg-white px-2 py-1.5 font-mono text-sm dark:bg-zinc-900"
            data-testid="key-value"
          >
            {setup.key}
          </code>
          <CopyButton value={setup.key} label="Copy key" />
        </div>
      </div>

      <div role="tablist" aria-label="Uploader settings" className="flex flex-wrap gap-1">
        {TABS.map((name) => (
          <button
            key={name}
            role="tab"
            type="button"
            aria-selected={tab === name}
            onClick={() => setTab(name)}
            className={`rounded-md px-3 py-1.5 text-sm font-medium ${tab === name ? "bg-brand-600 text-white" : "bg-white text-zinc-700 hover:bg-zinc-100 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800"}`}
          >
            {name}
          </button>
        ))}
      </div>

      <div role="tabpanel" aria-label={tab} className="space-y-3">
        {tab === "ShareX" && (
          <>
            <p className={muted}>
              Download the custom uploader and open it: ShareX adds it as the {destinationWords(setup.sharex.DestinationType)}.
            </p>
            <div className="flex flex-wrap gap-2">
              <button type="button" className={primaryButton} onClick={() => downloadSxcu(setup.sharex, setup.sharexFileName)}>
                Download {setup.sharexFileName}
              </button>
              <button type="button" className={secondaryButton} onClick={() => downloadSxcu(setup.sharexLinks, setup.sharexLinksFileName)}>
                Download {setup.sharexLinksFileName}
              </button>
            </div>
            <p className={muted}>The second file is ShareX&apos;s URL shortener: it turns a URL into a short link of this site.</p>
            {setup.sharexDomains.length > 0 && (
              <>
                <p className={muted}>Or an uploader whose links are built on one of this site&apos;s other domains:</p>
                <div className="flex flex-wrap gap-2">
                  {setup.sharexDomains.map((d) => (
                    <button key={d.domain} type="button" className={secondaryButton} onClick={() => downloadSxcu(d.config, d.fileName)}>
                      Download for {d.domain}
                    </button>
                  ))}
                </div>
              </>
            )}
          </>
        )}
        {tab === "Flameshot" && (
          <>
            <p className={muted}>
              Save as an executable script and bind it to a key: it captures a region, uploads it and copies the link.
            </p>
            <div className="flex justify-end">
              <CopyButton value={setup.flameshot} label="Copy script" />
            </div>
            <pre className="max-h-64 overflow-auto rounded bg-zinc-900 p-3 text-xs text-zinc-100">{setup.flameshot}</pre>
          </>
        )}
        {tab === "Chatterino" && (
          <>
            <p className={muted}>Settings → External tools → Image uploader: enable it and fill in these fields.</p>
            <dl className="space-y-2">
              <Field name="Request URL" value={setup.chatterino.request_url} />
              <Field name="Form field" value={setup.chatterino.form_field} />
              <Field name="Extra headers" value={setup.chatterino.extra_headers} />
              <Field name="Image link" value={setup.chatterino.image_link} />
              <Field name="Deletion link" value={setup.chatterino.deletion_link} />
            </dl>
          </>
        )}
        {tab === "curl" && (
          <>
            <p className={muted}>Upload from a shell; the response is JSON with the share link in post.url.</p>
            <dl>
              <Field name="Command" value={setup.curl} />
            </dl>
          </>
        )}
      </div>
    </div>
  );
}
