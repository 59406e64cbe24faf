import { describe, expect, it } from "vitest";
import { baseUrlProblem } from "./base-url";

// A base_url is where the platform will send an organization's LLM traffic, with its provider key:
// it must not let a tenant reach the platform's own network, however the address is spelled.

const refused = (url: string, allowHttpLoopback = false) => baseUrlProblem(url, allowHttpLoopback);

describe("LLM base_url", () => {
  it.each([
    // cloud metadata, in every spelling of 169.254.169.254
    "https://169.254.169.254/latest/meta-data/",
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:a9fe:a9fe]/v1",
    "https://[0:0:0:0:0:ffff:a9fe:a9fe]/",
    "https://[::a9fe:a9fe]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://[2002:a9fe:a9fe::]/",
    "https://2852039166/",
    "https://0xa9fea9fe/",
    "https://0251.0376.0251.0376/",
    "https://0xa9.0xfe.0xa9.0xfe/",
    "https://169.254.43518/",
    // loopback and unspecified
    "https://127.0.0.1/",
    "https://127.1/",
    "https://0x7f000001/",
    "https://0/",
    "https://0.0.0.0/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:7f00:1]/",
    "https://１２７.０.０.１/",
    // private, shared (CGNAT), link-local, unique-local, multicast, reserved
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://192.168.1.1/",
    "https://100.64.0.1/",
    "https://100.100.100.200/",
    "https://[fe80::1]/",
    "https://[fd00::1]/",
    "https://[ff02::1]/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://240.0.0.1/",
    "https://192.0.0.170/",
    // internal names, with and without a trailing dot
    "https://localhost/",
    "https://localhost./",
    "https://LOCALHOST%2e/",
    "https://api.localhost/",
    "https://metadata.google.internal/",
    "https://metadata.google.internal./",
    "https://printer.local/",
    "https://gpu.corp/",
    "https://box.home.arpa/",
    "https://metadata/",
    "https://kubernetes/",
  ])("refuses %s", (url) => {
    expect(refused(url)).toBeDefined();
  });

  it.each([
    ["https://user:pass@api.openai.com/", "must not carry credentials"],
    ["https://api.openai.com@127.0.0.1/", "must not carry credentials"],
    ["http://api.openai.com/", "must use https"],
    ["ftp://api.openai.com/", "must use https"],
    ["https://[fe80::1%25eth0]/", "must be an absolute URL"],
    ["not a url", "must be an absolute URL"],
  ])("refuses %s: %s", (url, message) => {
    expect(refused(url)).toBe(message);
  });

  it.each([
    "https://api.openai.com/v1",
    "https://api.anthropic.com",
    "https://8.8.8.8/",
    "https://[2606:4700:4700::1111]/",
    "https://example.com./v1",
    "https://llm.example.co.uk:8443/openai",
  ])("accepts %s", (url) => {
    expect(refused(url)).toBeUndefined();
  });

  it("allows http to a loopback host only with the development flag", () => {
    expect(refused("http://localhost:11434/v1")).toBe("must use https");
    expect(refused("http://localhost:11434/v1", true)).toBeUndefined();
    expect(refused("http://127.0.0.1:8080/", true)).toBeUndefined();
    expect(refused("http://[::1]:8080/", true)).toBeUndefined();
    expect(refused("http://10.0.0.1/", true)).toBe("must use https");
    expect(refused("https://127.0.0.1/", true)).toBeDefined();
  });
});
