import dgram from "node:dgram";
import type http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RenderChoice } from "./render-request.js";
import {
  closeServer,
  fixedLookup,
  listen,
  renderFailure,
  renderWith,
  startRendering,
} from "./renderer.test-helpers.js";
import type { Rendering } from "./rendering.js";

/**
 * The egress attack suite. Real traffic goes only to loopback: the site under
 * test on 127.0.0.1 (the one allowlisted range) and canaries on 127.0.0.2 (and
 * ::1 when available) that must never see a connection. Every other range is
 * refused by the guard before any packet is sent, with names answered by an
 * injected resolver.
 */

const MODES: RenderChoice[] = ["static", "browser"];

let site: http.Server & { port: number };
let P: number;
const canaryHits: string[] = [];
const canaries: { close(): void }[] = [];
let udpPort: number;
let rebindLookups = 0;
let rendering: Rendering;

/** Where the canaries listen, under the site's own port number. */
const C = () => `http://127.0.0.2:${P}`;

/** Each browser-side route an attacker page can try; each page marks itself done after its attempt. */
function vectors(): Record<string, string> {
  const c = C();
  return {
    image: `<img src="${c}/img">`,
    "css background": `<div style="background:url(${c}/bg)">x</div>`,
    script: `<script src="${c}/s.js"></script>`,
    stylesheet: `<link rel="stylesheet" href="${c}/s.css">`,
    "css import": `<style>@import url("${c}/import.css");</style>`,
    font: `<style>@font-face{font-family:x;src:url(${c}/f.woff)}</style><p style="font-family:x">x</p>`,
    iframe: `<iframe src="${c}/frame"></iframe>`,
    object: `<object data="${c}/obj"></object>`,
    "prefetch and preconnect": `<link rel="prefetch" href="${c}/prefetch"><link rel="preconnect" href="${c}"><link rel="dns-prefetch" href="${c}">`,
    fetch: `<script>fetch("${c}/fetch", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch by name": `<script>fetch("http://canary.test:${P}/named", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch by decimal address": `<script>fetch("http://2130706434:${P}/decimal", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch by mapped IPv6": `<script>fetch("http://[::ffff:127.0.0.2]:${P}/mapped", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch over https": `<script>fetch("https://127.0.0.2:${P}/tls", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch to localhost and ::1": `<script>fetch("http://localhost:${P}/lh", { mode: "no-cors" }).catch(() => 0); fetch("http://[::1]:${P}/v6", { mode: "no-cors" }).catch(() => 0)</script>`,
    "fetch through a redirect": `<script>fetch("/redirect-to-canary", { mode: "no-cors" }).catch(() => 0)</script>`,
    XMLHttpRequest: `<script>const x = new XMLHttpRequest(); x.open("GET", "${c}/xhr"); x.send();</script>`,
    sendBeacon: `<script>navigator.sendBeacon("${c}/beacon", "x")</script>`,
    WebSocket: `<script>try { new WebSocket("ws://127.0.0.2:${P}/ws") } catch {}</script>`,
    "secure WebSocket": `<script>try { new WebSocket("wss://127.0.0.2:${P}/wss") } catch {}</script>`,
    EventSource: `<script>new EventSource("${c}/events")</script>`,
    "form post": `<iframe name="sink"></iframe><form id="f" target="sink" method="post" action="${c}/form"><input name="a" value="b"></form><script>document.getElementById("f").submit()</script>`,
    "meta refresh": `<iframe srcdoc='<meta http-equiv="refresh" content="0;url=${c}/meta">'></iframe>`,
    "location change in a frame": `<iframe srcdoc='<script>location.href = "${c}/loc"</script>'></iframe>`,
    "window.open": `<script>window.open("${c}/popup")</script>`,
    "dedicated worker": `<script>new Worker(URL.createObjectURL(new Blob(['fetch("${c}/worker").catch(() => 0)'], { type: "text/javascript" })))</script>`,
    "service worker": `<script>navigator.serviceWorker?.register("/sw.js").catch(() => 0)</script>`,
    "WebRTC (STUN over UDP, TURN over TCP)": `<script>
      const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.2:${udpPort}" },
        { urls: "turn:127.0.0.2:${P}?transport=tcp", username: "u", credential: "p" }] });
      pc.createDataChannel("x");
      pc.createOffer().then((offer) => pc.setLocalDescription(offer)).catch(() => 0);
    </script>`,
  };
}

function attackPage(body: string): string {
  return `<!doctype html><html><head><title>attack</title></head><body><p>An ordinary looking page with enough text to be static.</p>${body}
    <script>setTimeout(() => { document.body.dataset.done = "1"; }, 800)</script></body></html>`;
}

beforeAll(async () => {
  site = await listen((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith("/vector/")) {
      const body = vectors()[decodeURIComponent(url.slice("/vector/".length))];
      res.writeHead(body ? 200 : 404, { "content-type": "text/html" }).end(attackPage(body ?? ""));
    } else if (url === "/sw.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(`fetch("${C()}/from-sw").catch(() => 0);`);
    } else if (url === "/redirect-to-canary") {
      res.writeHead(302, { location: `${C()}/redirected` }).end();
    } else if (url.startsWith("/redirect?to=")) {
      res.writeHead(302, { location: decodeURIComponent(url.slice("/redirect?to=".length)) }).end();
    } else if (url === "/loop") {
      res.writeHead(302, { location: "/loop" }).end();
    } else {
      res.writeHead(200, { "content-type": "text/html" }).end(attackPage(""));
    }
  });
  P = site.port;
  // Canaries: any TCP connection or UDP datagram at all is a hit.
  for (const host of ["127.0.0.2", "::1"]) {
    const canary = net.createServer((socket) => {
      canaryHits.push(`tcp ${host}`);
      socket.destroy();
    });
    const up = await new Promise<boolean>((resolve) => {
      canary.once("error", () => resolve(false));
      canary.listen(P, host, () => resolve(true));
    });
    if (up) canaries.push(canary);
    else if (host === "127.0.0.2") throw new Error("the 127.0.0.2 canary could not listen");
  }
  const udp = dgram.createSocket("udp4");
  udp.on("message", () => canaryHits.push("udp"));
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.2", resolve));
  udpPort = udp.address().port;
  canaries.push(udp);

  rendering = await startRendering(
    { WINNOW_EGRESS_ALLOW: "127.0.0.1/32", RENDER_MAX_REDIRECTS: "5" },
    fixedLookup({
      "site.test": ["127.0.0.1"],
      "canary.test": ["127.0.0.2"],
      "metadata.test": ["169.254.169.254"],
      "private.test": ["10.1.2.3"],
      "mixed.test": ["93.184.216.34", "10.0.0.5"],
      "v6local.test": ["::1"],
      "mapped.test": ["::ffff:127.0.0.2"],
      // Public-looking first, internal on every later lookup.
      "rebind.test": () => (rebindLookups++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"]),
    }),
  );
});

afterAll(async () => {
  await rendering?.close();
  for (const canary of canaries) canary.close();
  if (site) await closeServer(site);
});

afterEach(() => {
  expect(canaryHits, "a canary saw traffic").toEqual([]);
});

describe("the canaries", () => {
  it("record a connection when one reaches them (so silence means something)", async () => {
    await new Promise<void>((resolve) =>
      net
        .connect(P, "127.0.0.2")
        .once("close", () => resolve())
        .once("error", () => resolve()),
    );
    const udp = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => udp.send("ping", udpPort, "127.0.0.2", () => resolve()));
    udp.close();
    await expect.poll(() => canaryHits.length).toBe(2);
    canaryHits.length = 0;
  });
});

describe.each(MODES)("a URL to a refused place, %s path", (mode) => {
  it.each([
    ["loopback outside the allowlist", () => `${C()}/`],
    ["localhost", () => `http://localhost:${P}/`],
    ["a *.localhost name", () => `http://app.localhost:${P}/`],
    ["IPv6 loopback", () => `http://[::1]:${P}/`],
    ["decimal IPv4", () => `http://2130706434:${P}/`],
    ["hex IPv4", () => `http://0x7f.0.0.2:${P}/`],
    ["octal IPv4", () => `http://0177.0.0.2:${P}/`],
    ["short IPv4", () => `http://127.2:${P}/`],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.2]:${P}/`],
    ["0.0.0.0", () => `http://0.0.0.0:${P}/`],
    ["private 10/8", () => "http://10.1.2.3/"],
    ["private 172.16/12", () => "http://172.16.5.4/"],
    ["private 192.168/16", () => "http://192.168.0.1/"],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["AWS IPv6 metadata", () => "http://[fd00:ec2::254]/"],
    ["CGNAT", () => "http://100.64.0.1/"],
    ["benchmark range", () => "http://198.18.0.1/"],
    ["multicast", () => "http://224.0.0.1/"],
    ["broadcast", () => "http://255.255.255.255/"],
    ["reserved", () => "http://240.0.0.1/"],
    ["IPv6 link-local", () => "http://[fe80::1]/"],
    ["IPv6 unique local", () => "http://[fc00::1]/"],
    ["IPv6 multicast", () => "http://[ff02::1]/"],
    ["NAT64 of a private address", () => "http://[64:ff9b::a01:203]/"],
    ["6to4 of a private address", () => "http://[2002:a01:203::1]/"],
    ["a name resolving to loopback", () => `http://canary.test:${P}/`],
    ["a name resolving to metadata", () => "http://metadata.test/"],
    ["a name resolving to a private address", () => "http://private.test/"],
    ["a name with one private address among public ones", () => "http://mixed.test/"],
    ["a name resolving to ::1", () => `http://v6local.test:${P}/`],
    ["a name resolving to mapped loopback", () => `http://mapped.test:${P}/`],
    ["credentials in the URL", () => `http://user:secret@site.test:${P}/`],
    ["the file scheme", () => "file:///etc/passwd"],
    ["the ftp scheme", () => `ftp://127.0.0.1:${P}/`],
  ])("refuses %s", async (_name, url) => {
    const error = await renderFailure(rendering, url(), { mode });
    expect(error.type, error.message).toBe("url-not-allowed");
    // The message may name the host the caller gave, never what it resolved to.
    for (const resolved of ["127.0.0.2", "169.254.169.254", "10.1.2.3", "10.0.0.5", "::1"]) {
      if (!new URL(url()).hostname.includes(resolved)) expect(error.message).not.toContain(resolved);
    }
  });

  it.each([
    ["loopback outside the allowlist", () => `${C()}/`],
    ["a name resolving to loopback", () => `http://canary.test:${P}/`],
    ["localhost", () => `http://localhost:${P}/`],
    ["IPv6 loopback", () => `http://[::1]:${P}/`],
    ["a name resolving to metadata", () => "http://metadata.test/"],
    ["the file scheme", () => "file:///etc/passwd"],
  ])("refuses a redirect to %s", async (_name, target) => {
    const error = await renderFailure(rendering, `http://site.test:${P}/redirect?to=${encodeURIComponent(target())}`, {
      mode,
    });
    expect(error.type, error.message).toBe("url-not-allowed");
  });

  it("gives up on an endless redirect loop", async () => {
    const error = await renderFailure(rendering, `http://site.test:${P}/loop`, { mode });
    expect(error.type, error.message).toBe("target-unreachable");
  });
});

describe("DNS rebinding", () => {
  it("connects the static path to the address that was checked, resolving once", async () => {
    rebindLookups = 0;
    const page = await renderWith(rendering, `http://rebind.test:${P}/`, { mode: "static" });
    expect(page.html).toContain("An ordinary looking page");
    expect(rebindLookups).toBe(1);
  });

  it("refuses the browser's connection when the name points inside by the time it connects", async () => {
    rebindLookups = 0;
    // The early check sees the allowed address; the proxy's own lookup for the connection sees the internal one.
    const error = await renderFailure(rendering, `http://rebind.test:${P}/`, { mode: "browser" });
    expect(error.type, error.message).toBe("url-not-allowed");
    expect(rebindLookups).toBe(2);
  });
});

describe("a page on an allowed host that tries to reach a loopback canary", () => {
  it.each(Object.keys(vectors()))("gets nowhere with %s", async (name) => {
    const page = await renderWith(rendering, `http://site.test:${P}/vector/${encodeURIComponent(name)}`, {
      mode: "browser",
      waitFor: "body[data-done]",
    });
    expect(page.title).toBe("attack");
  });
});

describe("the egress proxy itself", () => {
  /** Sends raw bytes to the proxy and returns its status line and headers. */
  async function ask(raw: string): Promise<string> {
    const proxy = new URL(rendering.proxy.url);
    return new Promise((resolve) => {
      let answer = "";
      const socket = net.connect(Number(proxy.port), proxy.hostname, () => socket.write(raw));
      socket.on("data", (chunk) => {
        answer += chunk.toString("latin1");
        if (answer.includes("\r\n\r\n")) socket.destroy();
      });
      socket.on("close", () => resolve(answer));
      socket.on("error", () => resolve(answer));
    });
  }

  it.each([
    ["CONNECT to loopback outside the allowlist", "CONNECT 127.0.0.2:%P HTTP/1.1\r\nHost: 127.0.0.2:%P\r\n\r\n"],
    ["CONNECT to a decimal loopback address", "CONNECT 2130706434:%P HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["CONNECT to a hex loopback address", "CONNECT 0x7f000002:%P HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["CONNECT to IPv6 loopback", "CONNECT [::1]:%P HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["CONNECT to a name resolving to loopback", "CONNECT canary.test:%P HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["CONNECT to localhost", "CONNECT localhost:%P HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["forwarding to loopback outside the allowlist", "GET http://127.0.0.2:%P/ HTTP/1.1\r\nHost: 127.0.0.2:%P\r\n\r\n"],
    [
      "forwarding to a name resolving to metadata",
      "GET http://metadata.test/latest HTTP/1.1\r\nHost: metadata.test\r\n\r\n",
    ],
  ])("refuses %s with 403", async (_name, raw) => {
    expect(await ask(raw.replaceAll("%P", String(P)))).toMatch(/^HTTP\/1\.1 403 /);
  });

  it.each([
    ["an origin-form request", "GET / HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n"],
    ["a CONNECT without a port", "CONNECT canary.test HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["forwarding an ftp URL", `GET ftp://127.0.0.1:%P/ HTTP/1.1\r\nHost: x\r\n\r\n`],
  ])("refuses %s with 400", async (_name, raw) => {
    expect(await ask(raw.replaceAll("%P", String(P)))).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("sends a forged Host header to the checked address, not to the host it names", async () => {
    const answer = await ask(`GET http://site.test:${P}/ HTTP/1.1\r\nHost: 127.0.0.2:${P}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
