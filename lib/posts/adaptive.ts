/**
 * Which posts are on priority delivery (docs/priority-delivery.md, "The post's priority"): from
 * the upload on, while the stream is built, not only once ready; a failed stream goes back to standard.
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
