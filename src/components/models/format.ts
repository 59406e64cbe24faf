import type { BILLING_UNITS, MODEL_CATEGORIES } from "@/lib/models";

// Words for the model catalog's codes. Prices are shown exactly as the server sends them: decimal
// strings, never turned into numbers.

export const CATEGORY_LABELS: Record<(typeof MODEL_CATEGORIES)[number], string> = {
  text_generation: "Text generation",
  embedding: "Embedding",
  image_generation: "Image generation",
  audio: "Audio",
  moderation: "Moderation",
};

export const UNIT_LABELS: Record<(typeof BILLING_UNITS)[number], string> = {
  per_1m_tokens: "per 1M tokens",
  per_1k_tokens: "per 1K tokens",
  per_image: "per image",
  per_minute: "per minute",
  per_request: "per request",
};

export const categoryLabel = (code: string) => CATEGORY_LABELS[code as keyof typeof CATEGORY_LABELS] ?? code;
export const unitLabel = (code: string) => UNIT_LABELS[code as keyof typeof UNIT_LABELS] ?? code;
