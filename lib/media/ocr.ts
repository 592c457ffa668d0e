/** Reading the text of an image (docs/ocr.md): only confident words are kept, so a photo yields nothing, not noise. */
import { openImage, sharpSeconds } from "./sharp";
import { type OcrWord, runTesseract } from "./tesseract";

/** Words below this confidence (0-100) are dropped: photos and textures give 0-50. */
export const MIN_WORD_CONFIDENCE = 70;
/**
 * Long side past which an image is downscaled first. Screenshot text at 12 px reads well
 * unscaled (bench:ocr), so ordinary screens are read as they are; a HiDPI 5K or a long
 * scrolling capture is halved or so, which keeps its text above ~12 px and bounds the time.
 */
const MAX_SIDE = 4096;
/** Pixels past which an image is downscaled (a long, narrow capture). */
const MAX_PIXELS = 16_000_000;
/** Characters of text kept per image: a dense full-page capture is about 6 000. */
export const MAX_TEXT_CHARS = 20_000;

export interface ImageText {
  text: string;
  language: string;
  /** Mean confidence of the kept words (0-100); 0 when none. */
  confidence: number;
}

export interface ReadTextOptions {
  language: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Words of a line Tesseract is sure of as a whole (median ≥ SURE_LINE_CONFIDENCE, at least 3
 * words) are kept down to LOW_WORD_CONFIDENCE: in code, `network(retry);` is read right but
 * scored low for its punctuation. Photos give no such line.
 */
const SURE_LINE_CONFIDENCE = 85;
const LOW_WORD_CONFIDENCE = 20;
const hasWord = (w: OcrWord) => /[\p{L}\p{N}]/u.test(w.text);

function keptWords(words: readonly OcrWord[]): OcrWord[] {
  const lines = new Map<string, OcrWord[]>();
  for (const w of words) lines.set(w.line, [...(lines.get(w.line) ?? []), w]);
  const sure = new Set<string>();
  for (const [line, ws] of lines) {
    const sorted = ws.map((w) => w.confidence).sort((a, b) => a - b);
    if (ws.length >= 3 && sorted[Math.floor(sorted.length / 2)] >= SURE_LINE_CONFIDENCE) sure.add(line);
  }
  return words.filter(
    (w) => hasWord(w) && (w.confidence >= MIN_WORD_CONFIDENCE || (sure.has(w.line) && w.confidence >= LOW_WORD_CONFIDENCE)),
  );
}

export async function prepareForOcr(input: Buffer, timeoutMs: number): Promise<Buffer> {
  const image = openImage(input, { pages: 1 });
  const meta = await image.metadata();
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height, 1), Math.sqrt(MAX_PIXELS / Math.max(1, width * height)));
  let pipeline = image.rotate().flatten({ background: "#ffffff" }).grayscale();
  if (scale < 1) pipeline = pipeline.resize({ width: Math.max(1, Math.round(width * scale)) });
  // Level 1: Tesseract decodes it at once, and the PNG lives only in memory.
  return pipeline
    .png({ compressionLevel: 1 })
    .timeout({ seconds: sharpSeconds(timeoutMs) })
    .toBuffer();
}

export async function readImageText(input: Buffer, opts: ReadTextOptions): Promise<ImageText> {
  const started = Date.now();
  const png = await prepareForOcr(input, opts.timeoutMs);
  const words = await runTesseract(png, {
    language: opts.language,
    timeoutMs: Math.max(1, opts.timeoutMs - (Date.now() - started)),
    signal: opts.signal,
  });
  return wordsToText(words, opts.language);
}

/** The kept words, joined into lines in reading order (Tesseract's block, paragraph, line). */
export function wordsToText(words: readonly OcrWord[], language: string): ImageText {
  const kept = keptWords(words);
  const lines: string[] = [];
  let current = "";
  let line = "";
  for (const w of kept) {
    if (w.line !== line && current) {
      lines.push(current);
      current = "";
    }
    line = w.line;
    current = current ? `${current} ${w.text}` : w.text;
  }
  if (current) lines.push(current);
  const confidence = kept.length ? kept.reduce((n, w) => n + w.confidence, 0) / kept.length : 0;
  return { text: lines.join("\n").slice(0, MAX_TEXT_CHARS), language, confidence: Math.round(confidence * 10) / 10 };
}
