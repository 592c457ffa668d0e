/**
 * A real SMTP server in the test process (the smtp-server package) for the account mail
 * (docs/web-auth.md, "Passwords"): it takes every message, keeps its text, and lets a test
 * await the next one addressed to someone. SMTP_URL and MAIL_FROM point at it while it runs.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { resetEnv } from "@/lib/config/env";

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface TestMailbox {
  url: string;
  /** The next mail to `address` (already received, or the next to arrive). */
  next(address: string): Promise<ReceivedMail>;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** Listens on `port` (0: any free one) of 127.0.0.1. */
export async function startMailbox(port = 0): Promise<TestMailbox> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiting: { address: string; resolve: (mail: ReceivedMail) => void }[] = [];
  const deliver = (mail: ReceivedMail) => {
    received.push(mail);
    const index = waiting.findIndex((w) => mail.to.includes(w.address));
    if (index >= 0) {
      taken.add(mail);
      waiting.splice(index, 1)[0].resolve(mail);
    }
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        deliver({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  process.env.SMTP_URL = url;
  process.env.MAIL_FROM = "Media host <noreply@media.test>";
  resetEnv();
  return {
    url,
    received,
    next(address) {
      const lower = address.toLowerCase();
      const ready = received.find((m) => !taken.has(m) && m.to.includes(lower));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push({ address: lower, resolve }));
    },
    async close() {
      delete process.env.SMTP_URL;
      delete process.env.MAIL_FROM;
      resetEnv();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first http(s) link with a token in a mail's text (quoted-printable soft breaks undone). */
export function linkIn(mail: ReceivedMail): string {
  const text = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = /https?:\/\/\S+token=\S+/.exec(text);
  if (!match) throw new Error(`no link in mail:\n${mail.raw}`);
  return match[0];
}
