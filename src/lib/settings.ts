// What a setting's value may be and how platform settings are grouped, shared by the server and the
// console. Kept apart from the schemas (which build zod's validators as they load) so that a screen
// that only shows settings does not load the validation library with its page.

export const VALUE_TYPES = ["string", "integer", "boolean", "float", "json"] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** Categories of platform settings that govern the platform itself: organizations do not inherit them. */
export const PLATFORM_ONLY_CATEGORIES = ["tier", "policy"] as const;
/** The categories the seed uses, offered when a platform setting is added (any other may be typed). */
export const SETTING_CATEGORIES = [...PLATFORM_ONLY_CATEGORIES, "api_keys"] as const;
