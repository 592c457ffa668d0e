/** Account-recovery mail over SMTP_URL; without it the pages say to ask an administrator (docs/web-auth.md, "Passwords"). */
import type { Transporter } from "nodemailer";
import { optionalPackage } from "@/lib/config/packages";
import { env } from "@/lib/config/env";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export function mailConfigured(): boolean {
  const { SMTP_URL, MAIL_FROM } = env();
  return Boolean(SMTP_URL && MAIL_FROM);
}

let transport: { url: string; transporter: Transporter } | undefined;

function transporter(url: string): Transporter {
  // Loaded with the first mail, not by every process that links this module (the admin CLI).
  if (transport?.url !== url)
    transport = { url, transporter: optionalPackage<typeof import("nodemailer")>("nodemailer").createTransport(url) };
  return transport.transporter;
}

export async function sendMail(mail: Mail): Promise<void> {
  const { SMTP_URL, MAIL_FROM } = env();
  if (!SMTP_URL || !MAIL_FROM) throw new Error("Mail is not configured (SMTP_URL, MAIL_FROM).");
  await transporter(SMTP_URL).sendMail({ from: MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
}

/** Not awaited: "a link is on its way" must take as long whether or not there was an account. */
export function sendMailLater(mail: Mail): void {
  sendMail(mail).catch((error: unknown) => {
    console.error(`mail to ${mail.to} failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}
