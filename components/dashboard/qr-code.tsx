/**
 * A QR code of a share page or a short link (docs/qr-and-visits.md): the SVG from the API
 * shown at once, and both images to download (`download=true` sends them as attachments).
 * `path` is the endpoint without its query: `/api/posts/{code}/qr` or `/api/links/{code}/qr`.
 */
import { secondaryButton } from "./ui";

export function QrCode({ path, target }: { path: string; target: string }) {
  return (
    <figure className="flex flex-col items-start gap-2 sm:flex-row sm:items-center">
      <img src={`${path}?format=svg&size=160`} width={160} height={160} alt={`QR code of ${target}`} className="rounded bg-white p-1" />
      <figcaption className="space-y-2 text-sm">
        <p className="break-all text-zinc-600 dark:text-zinc-400">{target}</p>
        <p className="flex flex-wrap gap-2">
          <a className={secondaryButton} href={`${path}?format=svg&download=true`} download>
            Download SVG
          </a>
          <a className={secondaryButton} href={`${path}?format=png&size=1024&download=true`} download>
            Download PNG
          </a>
        </p>
      </figcaption>
    </figure>
  );
}
