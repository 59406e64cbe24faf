// The little of autocannon's API the TypeScript benches use (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    connections: number;
    duration: number;
    headers?: Record<string, string>;
    renderProgressBar?: boolean;
    renderResultsTable?: boolean;
    renderLatencyTable?: boolean;
  }
  interface Result {
    requests: { total: number };
    non2xx: number;
  }
  interface Instance {
    on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  }
  export default function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
}
