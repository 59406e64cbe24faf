// The little of autocannon's API the TypeScript benches use (the package ships no types).
declare module "autocannon" {
  interface Request {
    headers?: Record<string, string>;
  }
  interface Options {
    url: string;
    connections: number;
    duration: number;
    headers?: Record<string, string>;
    /** Each request as `setupRequest` makes it (it may set a header per request). */
    requests?: { setupRequest?: (request: Request) => Request }[];
    renderProgressBar?: boolean;
    renderResultsTable?: boolean;
    renderLatencyTable?: boolean;
  }
  interface Result {
    requests: { total: number };
    non2xx: number;
    /** Connection errors, timeouts included. */
    errors: number;
    timeouts: number;
  }
  interface Instance {
    on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  }
  export default function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
}
