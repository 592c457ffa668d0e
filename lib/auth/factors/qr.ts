/**
 * The TOTP set-up's QR code (docs/two-factor.md): the otpauth URI drawn as SVG on the server
 * by the `qrcode` package (maintained, no native parts), so the browser needs no QR code of
 * its own and the secret never goes to a third-party image service. Error correction M,
 * the usual choice for screens; black on white whatever the theme, as phone cameras expect.
 */
import QRCode from "qrcode";

export async function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } });
}
