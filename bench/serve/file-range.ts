/**
 * The file and range pairs. file: the bare reference's stat + createReadStream + pipe of the
 * JPEG /cdn served; ours: cdn (the public /cdn URL) and signed (the private post's signed
 * URL). range: the reference's stat + createReadStream({start, end}) + pipe of the video's
 * first MiB, 206; ours: the video's /cdn URL with `Range: bytes=0-1048575`.
 *
 * FD_REFERENCE. Both pairs have a second reference (`bare_file_fd`, `bare_range_fd`): the
 * same bytes from a descriptor opened once, with fstat and a positioned `readSync` on the
 * main thread and one `res.end` per request. The stat + createReadStream reference makes four
 * thread-pool round trips per response (stat, open, read, close); on two vCPUs its main
 * thread waits on them and peaks near 80 % of a core however it is pinned, so by the 90 %
 * rule no file ratio could ever count. The second reference does the same work with no round
 * trip, so its main thread is the bottleneck. A round counts when either reference saturated
 * its main thread, and the ratio is taken against the stricter of the two (more req/s; lower
 * p99): it never makes a target easier (docs/performance.md).
 */
import type { TargetOf } from "./bare";
import type { Target } from "./load";
import { TARGETS } from "./options";
import type { Ratio } from "./report";
import type { Seed } from "./seed";

export function fileRangeTargets({ ours, reference }: { ours: TargetOf; reference: TargetOf }, seed: Seed): Target[] {
  const range = { range: seed.rangeHeader };
  return [
    reference("bare_file", "file", "bare node:http, stat + createReadStream + pipe of the JPEG", "/file"),
    reference("bare_file_fd", "file", "bare node:http, the JPEG from a descriptor opened once: fstat + readSync + end", "/file-fd"),
    ours("cdn", "file", "GET public file (/cdn)", seed.cdnPath),
    ours("signed", "file", "GET private file, signed URL", seed.signedPath),
    reference("bare_range", "range", "bare node:http, the same 1 MiB range of the video", "/range", range),
    reference(
      "bare_range_fd",
      "range",
      "bare node:http, the same range from a descriptor opened once: fstat + readSync + end",
      "/range-fd",
      range,
    ),
    ours("range", "range", "GET video, Range first 1 MiB", seed.videoFilePath, range),
  ];
}

export const FILE_RANGE_RATIOS: Ratio[] = [
  { key: "cdn_ratio", ours: "cdn", reference: "bare_file", alternate: "bare_file_fd", metric: "rps", target: TARGETS.cdn_ratio },
  { key: "cdn_p99_ratio", ours: "cdn", reference: "bare_file", alternate: "bare_file_fd", metric: "p99", target: TARGETS.cdn_p99_ratio },
  { key: "signed_ratio", ours: "signed", reference: "bare_file", alternate: "bare_file_fd", metric: "rps", target: TARGETS.signed_ratio },
  { key: "range_ratio", ours: "range", reference: "bare_range", alternate: "bare_range_fd", metric: "rps", target: TARGETS.range_ratio },
];
