// The model catalog's codes, shared by the server and the console. Kept apart from the schemas
// (which build zod's validators as they load) so that the catalog's list, which names them, does
// not load the validation library with its page.

export const MODEL_CATEGORIES = ["text_generation", "embedding", "image_generation", "audio", "moderation"] as const;
export const BILLING_UNITS = ["per_1m_tokens", "per_1k_tokens", "per_image", "per_minute", "per_request"] as const;
