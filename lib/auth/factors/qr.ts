/** The TOTP set-up's QR code as server-drawn SVG (docs/two-factor.md), so the secret never goes to a third-party image service. */
import QRCode from "qrcode";

export async function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } });
}
