import { describe, expect, it } from "vitest";
import { startApp } from "@/test/app";
import { testDatabase } from "@/test/database";

// HSTS goes out only when the app is served over HTTPS (its AUTH_URL), and every answer carries a
// Content-Security-Policy decided by the app's server, whatever a client sends.

const { url } = await testDatabase();

describe("security headers", () => {
  it("send HSTS when the public URL is https, and not otherwise", async () => {
    const plain = await startApp(url);
    expect((await plain.fetch("/api/health")).headers.get("strict-transport-security")).toBeNull();
    const secure = await startApp(url, { AUTH_URL: "https://svc.example.com" });
    for (const path of ["/api/health", "/", "/console/sign-in"]) {
      expect((await secure.fetch(path)).headers.get("strict-transport-security"), path).toBe(
        "max-age=63072000; includeSubDomains",
      );
    }
  });

  it("give console pages a nonce of the server's own, never one a client sends", async () => {
    const app = await startApp(url);
    const planted = "script-src 'nonce-attacker'";
    const page = await app.fetch("/console/sign-in", { headers: { "content-security-policy": planted } });
    const policy = page.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(nonce).not.toBe("attacker");
    const html = await page.text();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(html).not.toContain('nonce="attacker"');
    // A page rendered once at build time keeps 'unsafe-inline' for Next.js's inline scripts, and no nonce.
    const home = await app.fetch("/", { headers: { "content-security-policy": planted } });
    expect(home.headers.get("content-security-policy")).toMatch(/script-src 'self' 'unsafe-inline'/);
    expect(await home.text()).not.toContain('nonce="attacker"');
  });
});
