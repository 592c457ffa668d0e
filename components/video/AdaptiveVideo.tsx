"use client";
/**
 * A video that plays the adaptive (HLS) stream when the file has one, else the fast-start
 * MP4. Safari (and iOS) play HLS natively; elsewhere hls.js (loaded only when needed, so
 * pages without a stream never download it) feeds Media Source Extensions. Any fatal
 * stream error, or a browser with neither, falls back to the MP4: never a broken player.
 *
 * Server-rendered markup is the plain MP4 <video>, so crawlers and no-JS clients get a
 * working file; the stream is attached after hydration.
 */
import { useEffect, useRef, useState, type VideoHTMLAttributes } from "react";

export interface AdaptiveVideoProps extends Omit<VideoHTMLAttributes<HTMLVideoElement>, "src"> {
  /** The fast-start MP4 (file.url): the fallback and what unfurlers get. */
  src: string;
  /** The HLS master playlist (file.stream_url); null or absent → MP4 only. */
  streamUrl?: string | null;
  /** MIME type of `src`. */
  type?: string;
}

type Mode = "mp4" | "native" | "hlsjs";

export function AdaptiveVideo({ src, streamUrl, type = "video/mp4", children, ...rest }: AdaptiveVideoProps) {
  const ref = useRef<HTMLVideoElement>(null);
  const [mode, setMode] = useState<Mode>("mp4");

  useEffect(() => {
    const video = ref.current;
    if (!video || !streamUrl) {
      setMode("mp4");
      return;
    }
    const native = video.canPlayType("application/vnd.apple.mpegurl") !== "";
    // Safari: native HLS is better than MSE there (AirPlay, power use, iOS without MSE).
    // Recent Chromium also claims native HLS, but hls.js does more there (quality capped to
    // the player's size, our error fallback), so only Apple's engine goes native first.
    if (native && /Apple/.test(navigator.vendor)) {
      setMode("native");
      return;
    }
    let destroyed = false;
    let cleanup: (() => void) | undefined;
    void import("hls.js").then(
      ({ default: Hls }) => {
        if (destroyed) return;
        if (!Hls.isSupported()) {
          setMode(native ? "native" : "mp4");
          return;
        }
        const hls = new Hls({ capLevelToPlayerSize: true });
        hls.on(Hls.Events.ERROR, (_event, data) => {
          if (!data.fatal) return;
          hls.destroy();
          setMode("mp4");
        });
        hls.loadSource(streamUrl);
        hls.attachMedia(video);
        setMode("hlsjs");
        cleanup = () => hls.destroy();
      },
      () => setMode("mp4"),
    );
    return () => {
      destroyed = true;
      cleanup?.();
    };
  }, [streamUrl]);

  // Back on the MP4 after a failed stream: restart resource selection on the <source>.
  const wasAdaptive = useRef(false);
  useEffect(() => {
    if (mode !== "mp4") wasAdaptive.current = true;
    else if (wasAdaptive.current) ref.current?.load();
  }, [mode]);

  // When hls.js owns the element it sets its own source; native HLS gets the playlist as src.
  return (
    <video
      ref={ref}
      data-delivery={mode === "mp4" ? "standard" : "adaptive"}
      // A stream is attached after hydration: its page keeps the React runtime (lib/server/share-islands.ts).
      data-needs-runtime={streamUrl ? "" : undefined}
      {...rest}
      {...(mode === "native" && streamUrl ? { src: streamUrl } : {})}
    >
      {mode === "mp4" ? <source src={src} type={type} /> : null}
      {children}
    </video>
  );
}

export default AdaptiveVideo;
