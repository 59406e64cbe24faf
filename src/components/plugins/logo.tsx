import { LOGO_MAX_BYTES } from "@/lib/plugins";

// Plugin logos: shown from their data: URL (the CSP allows data: images), and read from a picked
// file as base64. The server checks the bytes again and refuses anything but these raster types.

export const LOGO_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** The picked file as a data: URL, or why it cannot be a logo. */
export function readLogo(file: File): Promise<{ dataUrl: string } | { problem: string }> {
  if (!(LOGO_TYPES as readonly string[]).includes(file.type)) {
    return Promise.resolve({ problem: "The logo must be a PNG, JPEG, GIF or WebP image." });
  }
  if (file.size > LOGO_MAX_BYTES) {
    return Promise.resolve({
      problem: `The logo must be at most ${LOGO_MAX_BYTES / 1024} KiB; this file is ${Math.ceil(file.size / 1024)} KiB.`,
    });
  }
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ dataUrl: String(reader.result) });
    reader.onerror = () => resolve({ problem: "The file could not be read." });
    reader.readAsDataURL(file);
  });
}

export function PluginLogo({ src, size = 32 }: { src: string | null; size?: number }) {
  if (!src) {
    return (
      <span
        aria-hidden="true"
        style={{ width: size, height: size }}
        className="inline-block shrink-0 rounded-md bg-slate-100 dark:bg-slate-800"
      />
    );
  }
  // eslint-disable-next-line @next/next/no-img-element -- a data: URL, nothing for next/image to optimise
  return <img src={src} alt="" width={size} height={size} className="shrink-0 rounded-md object-contain" />;
}
