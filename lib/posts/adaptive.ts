/**
 * Which posts are on priority (adaptive) delivery (docs/priority-delivery.md, "The post's
 * priority"): `priority` is "true when the post's video is on priority (adaptive)
 * delivery". A video the upload puts on it is on it from the upload on, while
 * its stream is queued or being built, not only once the stream is ready; the file's
 * `stream_state` says how far it is. A stream that failed puts the file back on standard
 * delivery.
 */
export const ADAPTIVE_STREAM_STATES: readonly string[] = ["queued", "processing", "ready"];

export type StreamedFile = { priority: boolean; streamState: string | null };

export function onAdaptiveDelivery(file: StreamedFile): boolean {
  return file.priority && ADAPTIVE_STREAM_STATES.includes(file.streamState ?? "");
}

/** A post (album) is on adaptive delivery when any of its files is. */
export function postOnAdaptiveDelivery(files: readonly StreamedFile[]): boolean {
  return files.some(onAdaptiveDelivery);
}
