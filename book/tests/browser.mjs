// Opens the built book in headless Chromium (Debian's package, no browser download) and checks
// that a reader can use it: a chapter renders, the exercise code included from exercises/ shows,
// the solution stays folded until asked for, the simulator's figures load, and search finds a term.
//
// Usage: node book/tests/browser.mjs [BUILD_DIR]   (default: book/build)
// Environment: CHROMIUM (default /usr/bin/chromium).
// Exits 1 on the first failed check, saying which; each check fails if its behaviour breaks.

import { spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const buildDir = path.resolve(process.argv[2] ?? path.join(here, "..", "build"));
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const TIMEOUT_MS = 15000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function serve(dir) {
  const port = await freePort();
  const server = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", dir], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (chunk) => (stderr += chunk));
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 100; tries++) {
    try {
      const response = await fetch(`${base}/index.html`);
      if (response.ok) return { base, server };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill();
  throw new Error(`python3 -m http.server did not start on port ${port}: ${stderr}`);
}

const results = [];
async function check(name, body) {
  try {
    await body();
    results.push(`ok    ${name}`);
  } catch (err) {
    results.push(`FAIL  ${name}\n      ${String(err.message ?? err).split("\n").join("\n      ")}`);
    throw err;
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

const { base, server } = await serve(buildDir);
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

let failed = false;
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  const pageErrors = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));

  await check("a chapter renders: elementwise.html shows its title", async () => {
    const response = await page.goto(`${base}/elementwise.html`);
    assert(response && response.ok(), `GET elementwise.html answered ${response && response.status()}`);
    const title = page.locator("main h1").first();
    await title.waitFor({ state: "visible" });
    const text = (await title.innerText()).trim();
    assert(text === "Elementwise kernels", `the page's first heading is ${JSON.stringify(text)}`);
  });

  await check("the exercise's code, included from exercises/, shows in a code block", async () => {
    // The include of exercises/02_vector_add/vector_add.cu: its kernel's signature, highlighted.
    const code = page.locator("main pre code", { hasText: "__global__ void vector_add(" }).first();
    await code.waitFor({ state: "visible" });
    const text = await code.innerText();
    assert(text.includes("TODO"), "the vector_add code block has no TODO: is it the exercise's file?");
    assert(!text.includes("ANCHOR"), "anchor comments leaked into the included code");
  });

  await check("the solution is folded until its summary is clicked", async () => {
    const fold = page.locator("main details", { hasText: "Solution" }).first();
    const solution = fold.locator("pre code", { hasText: "c[i] = a[i] + b[i]" });
    assert((await solution.count()) === 1, "no folded solution containing c[i] = a[i] + b[i]");
    assert(!(await solution.isVisible()), "the solution is visible before the fold is opened");
    await fold.locator("summary").click();
    await solution.waitFor({ state: "visible" });
  });

  await check("a figure drawn from the simulator loads on coalescing.html", async () => {
    await page.goto(`${base}/coalescing.html`);
    const figure = page.locator('main img[src="figures/coalesced.svg"]');
    await figure.waitFor({ state: "visible" });
    const width = await figure.evaluate((img) => (img.complete ? img.naturalWidth : 0));
    assert(width > 0, "figures/coalesced.svg did not load");
  });

  await check("search finds 'coalescing' and links to its chapter", async () => {
    await page.goto(`${base}/index.html`);
    await page.locator("#search-toggle").click();
    const bar = page.locator("#searchbar");
    await bar.waitFor({ state: "visible" });
    // mdBook searches on key events, so type the term rather than setting the value.
    await bar.pressSequentially("coalescing");
    const hits = page.locator("#searchresults li");
    await hits.first().waitFor({ state: "visible" });
    const links = await page.locator("#searchresults li a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    assert(links.some((href) => href && href.startsWith("coalescing.html")),
      `no search result links to coalescing.html; results: ${links.slice(0, 5).join(", ")}`);
  });

  await check("no JavaScript errors on the pages visited", async () => {
    assert(pageErrors.length === 0, pageErrors.join("\n"));
  });
} catch {
  failed = true;
} finally {
  await browser.close();
  server.kill();
}

console.log(results.join("\n"));
if (failed) {
  console.error("browser test: FAILED");
  process.exit(1);
}
console.log("browser test: passed");
