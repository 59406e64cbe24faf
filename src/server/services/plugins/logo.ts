import "server-only";
import { LOGO_MAX_BYTES } from "@/lib/schemas/plugins";

// Plugin logos: base64 raster images only, recognized by their leading bytes (SVG is refused: it can
// carry script). Returns the normalized data: URL, or a reason for refusing.

const SIGNATURES: { type: string; test: (b: Buffer) => boolean }[] = [
  {
    type: "image/png",
    test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: "image/jpeg", test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", test: (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")) },
  {
    type: "image/webp",
    test: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
  },
];

export function normalizeLogo(value: string): { dataUrl: string } | { problem: string } {
  const match = /^data:([a-z/+.-]+);base64,(.*)$/s.exec(value);
  const payload = (match ? match[2] : value)?.replace(/\s+/g, "") ?? "";
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 !== 0) return { problem: "must be base64" };
  const bytes = Buffer.from(payload, "base64");
  if (bytes.length > LOGO_MAX_BYTES) return { problem: `must be at most ${LOGO_MAX_BYTES / 1024} KiB` };
  const kind = SIGNATURES.find((s) => s.test(bytes));
  if (!kind) return { problem: "must be a PNG, JPEG, GIF or WebP image" };
  if (match && match[1] !== kind.type) return { problem: `says ${match[1]} but is ${kind.type}` };
  return { dataUrl: `data:${kind.type};base64,${payload}` };
}
