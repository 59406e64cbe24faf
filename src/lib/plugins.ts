// How large a plugin's logo may be, shared by the server, which checks it, and the console, which
// checks a picked file first. Kept apart from the schemas (which build zod's validators as they
// load) so that a list showing logos does not load the validation library with its page.

export const LOGO_MAX_BYTES = 256 * 1024;
