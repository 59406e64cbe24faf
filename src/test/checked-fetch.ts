import { afterAll, afterEach } from "vitest";

// Run before every test file (vitest's setupFiles): every answer a test gets from the app over
// fetch — an app on this machine, anything under /api — is checked (src/test/answers.ts), whether
// the test goes through a helper or calls fetch itself. A failed check throws where the answer
// arrives, and fails the test even where the test swallows errors around its fetch.

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const unchecked = globalThis.fetch;
const failures: Error[] = [];

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await unchecked(input, init);
  const url = new URL(response.url || (input instanceof Request ? input.url : input));
  if (!LOOPBACK.has(url.hostname) || !(url.pathname === "/api" || url.pathname.startsWith("/api/"))) return response;
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  // A body cut off on the way fails the fetch, as the test's own read of it would: no check failed.
  // (The whole body is read before the test gets the answer: a streamed answer would need an
  // exception here.)
  const text = await response.clone().text();
  // Loaded on the first answer from the app only: unit tests never pay for the route registry.
  const { checkAnswer } = await import("./answers");
  try {
    checkAnswer(method, url, { status: response.status, headers: response.headers, text });
  } catch (error) {
    failures.push(error as Error);
    throw error;
  }
  return response;
};

function throwFailures() {
  const [first, ...more] = failures.splice(0);
  if (first)
    throw new Error(
      `an answer of the app failed its check${more.length ? ` (and ${more.length} more)` : ""}: ${first.message}`,
    );
}

afterEach(throwFailures);
afterAll(throwFailures);
