/** The media layer: type sniffing, image and video processing, conversion, ffmpeg access. */
export { sniffFile, sniffBuffer, sniffedType, isImageFormat, isVideoFormat } from "./sniff";
export type { Sniffed, SniffedFormat, ImageFormat, VideoFormat } from "./sniff";
export { processImage } from "./image";
export type { ImageResult, ProcessImageOptions, ImageTarget } from "./image";
export { processVideo } from "./video";
export type { VideoResult, ProcessVideoOptions } from "./video";
export {
  convertFile,
  convertImageBytes,
  canConvert,
  convertNeedsPlus,
  convertOutputType,
  isConvertTarget,
  isImageTarget,
  CONVERT_MATRIX,
  CONVERT_TARGETS,
  VIDEO_GIF,
} from "./convert";
export type { ConvertSource, ConvertTarget, ConvertOptions, ConvertResult, ConvertedBytes } from "./convert";
export { runFfmpeg, runFfprobe, MediaToolError, isMediaToolError, binaryPath } from "./ffmpeg";
export type { ProbeResult, ProbeStream, RunOptions, FfmpegProgress, ToolFailure } from "./ffmpeg";
export { withMediaSlot, mediaLimiter } from "./limiter";
export { mediaConfig } from "./config";
export type { MediaConfig } from "./config";
