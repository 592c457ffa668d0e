/** A gallery tile without a picture names what it holds, never a raw media type (issue 29, docs/dashboard.md). */
import { describe, expect, it } from "vitest";
import type { FileObject } from "@/components/dashboard/api";
import { placeholderLabel } from "@/components/dashboard/tile-label";

const file = (fields: Partial<FileObject>): FileObject => ({
  name: "x",
  url: "https://cdn.example/x",
  size: 10,
  mime_type: "application/octet-stream",
  width: null,
  height: null,
  thumbnail_url: null,
  renditions: [],
  stream_url: null,
  stream_state: null,
  kind: "file",
  language: null,
  ...fields,
});

describe("placeholderLabel", () => {
  it("a paste: its language, or Text for plain text", () => {
    expect(placeholderLabel(file({ kind: "text", name: "greet.py", mime_type: "text/plain; charset=utf-8", language: "python" }))).toBe(
      "python",
    );
    expect(placeholderLabel(file({ kind: "text", name: "notes.txt", mime_type: "text/plain; charset=utf-8", language: "text" }))).toBe(
      "Text",
    );
    expect(placeholderLabel(file({ kind: "text", name: "notes", mime_type: "text/plain; charset=utf-8", language: null }))).toBe("Text");
  });

  it("another file: its extension, else File; no post: No file", () => {
    expect(placeholderLabel(file({ name: "archive.tar.zip", mime_type: "application/zip" }))).toBe("ZIP file");
    expect(placeholderLabel(file({ name: "README" }))).toBe("File");
    expect(placeholderLabel(file({ name: ".hidden" }))).toBe("File");
    expect(placeholderLabel(undefined)).toBe("No file");
  });

  it("a picture without a preview yet says its kind", () => {
    expect(placeholderLabel(file({ kind: "video", name: "clip.mp4", mime_type: "video/mp4" }))).toBe("Video");
    expect(placeholderLabel(file({ kind: "image", name: "a.png", mime_type: "image/png" }))).toBe("Image");
  });
});
