/** The rows of one table in a `mysqldump` file, read line by line (each INSERT is one line, so memory holds one statement). */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

export type DumpRow = Record<string, string | number | null>;

const ESCAPES: Record<string, string> = { "0": "\0", n: "\n", r: "\r", t: "\t", Z: "\x1a", b: "\b" };

/** The tuples of `VALUES (...),(...);` from `start` in `text`. */
function* tuples(text: string, start: number): Generator<(string | number | null)[]> {
  let i = start;
  const n = text.length;
  while (i < n) {
    while (i < n && text[i] !== "(") {
      if (text[i] === ";") return;
      i++;
    }
    if (i >= n) return;
    i++;
    const values: (string | number | null)[] = [];
    for (;;) {
      while (text[i] === " ") i++;
      if (text[i] === "'") {
        let out = "";
        i++;
        while (i < n && text[i] !== "'") {
          if (text[i] === "\\" && i + 1 < n) {
            out += ESCAPES[text[i + 1]] ?? text[i + 1];
            i += 2;
          } else if (text[i] === "'" && text[i + 1] === "'") {
            out += "'";
            i += 2;
          } else out += text[i++];
        }
        i++;
        values.push(out);
      } else {
        let end = i;
        while (end < n && text[end] !== "," && text[end] !== ")") end++;
        const raw = text.slice(i, end).trim();
        i = end;
        if (/^null$/i.test(raw)) values.push(null);
        else if (/^0x[0-9a-f]*$/i.test(raw)) values.push(Buffer.from(raw.slice(2), "hex").toString("utf8"));
        else values.push(Number.isNaN(Number(raw)) ? raw : Number(raw));
      }
      while (text[i] === " ") i++;
      if (text[i] === ",") {
        i++;
        continue;
      }
      i++; // ")"
      break;
    }
    yield values;
  }
}

const names = (list: string): string[] => [...list.matchAll(/`((?:[^`]|``)+)`/g)].map((m) => m[1].replace(/``/g, "`"));

export async function* dumpRows(path: string, table: string): AsyncGenerator<DumpRow> {
  let columns: string[] | null = null;
  let inCreate = false;
  const create = `CREATE TABLE \`${table}\``;
  const insert = `INSERT INTO \`${table}\``;
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.startsWith(create)) {
      inCreate = true;
      columns = [];
      continue;
    }
    if (inCreate) {
      const column = /^\s*`((?:[^`]|``)+)`\s/.exec(line);
      if (column) columns?.push(column[1]);
      else if (line.startsWith(")")) inCreate = false;
      continue;
    }
    if (!line.startsWith(insert)) continue;
    const valuesAt = line.search(/\)?\s*VALUES\s*\(/i);
    const head = line.slice(insert.length, valuesAt + 1);
    const own = head.includes("(") ? names(head) : null;
    const order = own ?? columns;
    if (!order) continue;
    for (const values of tuples(line, line.indexOf("(", valuesAt))) {
      const row: DumpRow = {};
      order.forEach((name, k) => {
        row[name] = values[k] ?? null;
      });
      yield row;
    }
  }
}
