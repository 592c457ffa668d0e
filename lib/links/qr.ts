/** QR codes of a share page or short link (docs/qr-and-visits.md): quiet zone of 4 modules, black on white whatever the theme. */
import QRCode from "qrcode";

export const QR_FORMATS = ["svg", "png"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];
/** PNG widths in pixels: from a thumbnail to a print-sized image; the default fits a flyer. */
export const QR_SIZE_MIN = 64;
export const QR_SIZE_MAX = 2048;
export const QR_SIZE_DEFAULT = 512;

const COLORS = { dark: "#000000", light: "#ffffff" } as const;

export interface QrImage {
  contentType: string;
  bytes: Uint8Array;
}

export async function drawQr(text: string, format: QrFormat, size: number = QR_SIZE_DEFAULT): Promise<QrImage> {
  const options = { errorCorrectionLevel: "M", margin: 4, color: COLORS } as const;
  if (format === "png") {
    const bytes = await QRCode.toBuffer(text, { ...options, type: "png", width: size });
    return { contentType: "image/png", bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  }
  const svg = await QRCode.toString(text, { ...options, type: "svg", width: size });
  return { contentType: "image/svg+xml", bytes: new TextEncoder().encode(svg) };
}
