/**
 * A DNS server of the test's own on 127.0.0.1 (UDP, any port) answering TXT questions from
 * a table the test fills, NXDOMAIN for the rest: enough for the link-domain proof
 * (docs/link-domains.md), which the service asks through DNS_RESOLVER. RFC 1035 wire format.
 */
import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";

export interface TestDns {
  /** `host:port`, the value for DNS_RESOLVER. */
  address: string;
  /** TXT records by lower-case name. */
  txt: Map<string, string[]>;
  close(): Promise<void>;
}

/** The question's name and where the question section ends. */
function readQuestion(query: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset] !== 0) {
    const length = query[offset];
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString("ascii"));
    offset += length + 1;
  }
  return { name: labels.join(".").toLowerCase(), end: offset + 5 };
}

function txtRecord(text: string): Buffer {
  const data = Buffer.from(text, "utf8");
  const rdata = Buffer.concat([Buffer.from([data.length]), data]);
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  fixed.writeUInt16BE(16, 2); // TXT
  fixed.writeUInt16BE(1, 4); // IN
  fixed.writeUInt32BE(1, 6); // TTL
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}

export async function startDns(): Promise<TestDns> {
  const txt = new Map<string, string[]>();
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    const { name, end } = readQuestion(query);
    const type = query.readUInt16BE(end - 4);
    const answers = type === 16 ? (txt.get(name) ?? []) : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    // Response, recursion desired copied, recursion available; NXDOMAIN when the name is unknown.
    header.writeUInt16BE(0x8180 | (query.readUInt16BE(2) & 0x0100) | (txt.has(name) ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const reply = Buffer.concat([header, query.subarray(12, end), ...answers.map(txtRecord)]);
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    txt,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
