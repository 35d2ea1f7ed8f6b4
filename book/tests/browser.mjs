// Opens the built book in headless Chromium (Debian's package, no browser download) and checks
// that a reader can use it: a chapter renders, the exercise code included from exercises/ shows,
// the solution stays folded until asked for, the simulator's figures load, and search finds a term.
// Then every page with figures, in the light theme and, on a 400-pixel phone, in the dark theme
// picked from the theme menu: each figure's images load, the theme's version of the figure shows
// (and only it, so a screen reader reads its alt text once), its smallest text is at least
// MIN_TEXT_PX CSS pixels, and the page does not scroll sideways (a figure's wrapper may). Last,
// every SVG in figures/ on its own: no text drawn past its canvas.
//
// Usage: node book/tests/browser.mjs [BUILD_DIR]   (default: book/build)
// Environment: CHROMIUM (default /usr/bin/chromium).
// Exits 1 on the first failed check, saying which; each check fails if its behaviour breaks.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const buildDir = path.resolve(process.argv[2] ?? path.join(here, "..", "build"));
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const TIMEOUT_MS = 15000;
const PHONE = { width: 400, height: 800 };
const MIN_TEXT_PX = 8;
const DARK_THEMES = ["coal", "navy", "ayu"];

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

// Each figure on the page, once its images have loaded: which images loaded, which show, the CSS
// size of its smallest text (the SVG's smallest font-size scaled by the shown image's width over
// its viewBox's), and which parts of the page (not a figure's wrapper) scroll sideways.
async function inspectFigures(page) {
  return page.evaluate(async () => {
    const figures = [];
    for (const wrapper of document.querySelectorAll("main .figure")) {
      const images = [...wrapper.querySelectorAll("img")];
      await Promise.all(images.map((img) => img.complete ? null : new Promise((done) => {
        img.addEventListener("load", done);
        img.addEventListener("error", done);
      })));
      const shown = images.filter((img) => getComputedStyle(img).display !== "none");
      const figure = {
        images: images.map((img) => ({ src: img.getAttribute("src"), loaded: img.complete && img.naturalWidth > 0 })),
        shown: shown.map((img) => img.getAttribute("src")),
      };
      if (shown.length === 1) {
        const svg = new DOMParser().parseFromString(await (await fetch(shown[0].src)).text(), "image/svg+xml");
        const viewWidth = Number((svg.documentElement.getAttribute("viewBox") ?? "").trim().split(/[\s,]+/)[2]);
        const sizes = [...svg.querySelectorAll("text")].map((t) => Number(t.getAttribute("font-size") ?? 16));
        figure.smallestPx = sizes.length ? Math.min(...sizes) * shown[0].getBoundingClientRect().width / viewWidth : Infinity;
      }
      figures.push(figure);
    }
    // mdBook's .content scrolls on its own: it counts as the page, as do its ancestors and <main>.
    const pageParts = [document.querySelector("main")];
    while (pageParts.at(-1)?.parentElement) pageParts.push(pageParts.at(-1).parentElement);
    const sideways = pageParts.filter((el) => el && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}${el.className ? "." + String(el.className).split(" ").join(".") : ""}`
        + ` (${el.scrollWidth} pixels of content in ${el.clientWidth})`);
    return { figures, sideways };
  });
}

// Fails with every problem of a page's figures: `theme` is "light" or "dark", the version that must show.
function problems(name, { figures, sideways }, theme) {
  const found = [];
  if (figures.length === 0) found.push("no figures found");
  for (const figure of figures) {
    const light = figure.images.find((img) => !img.src.endsWith(".dark.svg"));
    const what = light ? light.src : "a figure";
    if (figure.images.length !== 2) found.push(`${what}: ${figure.images.length} images, not a light and a dark one`);
    for (const img of figure.images) if (!img.loaded) found.push(`${img.src} did not load`);
    if (figure.shown.length !== 1) {
      found.push(`${what}: ${figure.shown.length} of its images show, not one`);
      continue;
    }
    if (figure.shown[0].endsWith(".dark.svg") !== (theme === "dark")) {
      found.push(`${what}: the ${theme} theme shows ${figure.shown[0]}`);
    }
    if (!(figure.smallestPx >= MIN_TEXT_PX)) {
      found.push(`${figure.shown[0]}: its smallest text is ${figure.smallestPx.toFixed(1)} CSS pixels, under ${MIN_TEXT_PX}`);
    }
  }
  if (sideways.length) found.push(`the page scrolls sideways: ${sideways.join(", ")}`);
  assert(found.length === 0, `${name}:\n${found.join("\n")}`);
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
  page.on("pageerror", (err) => pageErrors.push(`${page.url()}: ${err.message}`));

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

  const figurePages = readdirSync(buildDir)
    .filter((name) => name.endsWith(".html") && !["print.html", "toc.html", "404.html"].includes(name))
    .filter((name) => readFileSync(path.join(buildDir, name), "utf8").includes('<span class="figure">'))
    .sort();

  await check(`figures: ${figurePages.length} pages show them, each light and dark`, async () => {
    assert(figurePages.length >= 5, `only ${figurePages.length} pages with figures: is book/themed_figures.py running?`);
  });

  await check("light theme: every figure's images load and the light figure shows", async () => {
    await page.evaluate(() => localStorage.setItem("mdbook-theme", "light"));
    for (const name of figurePages) {
      await page.goto(`${base}/${name}`);
      problems(name, await inspectFigures(page), "light");
    }
  });

  const phone = await browser.newPage({ viewport: PHONE });
  phone.setDefaultTimeout(TIMEOUT_MS);
  phone.on("pageerror", (err) => pageErrors.push(err.message));

  await check("on a 400-pixel phone, the theme menu's Navy shows the dark figures", async () => {
    await phone.goto(`${base}/${figurePages[0]}`);
    await phone.locator("#theme-toggle").click();
    await phone.locator("#navy").click();
    const theme = await phone.evaluate(() => document.documentElement.className);
    assert(theme.split(" ").includes("navy"), `after picking Navy, <html> has class ${JSON.stringify(theme)}`);
    problems(figurePages[0], await inspectFigures(phone), "dark");
  });

  await check("dark theme (navy), 400 pixels wide: every page's figures are dark, legible, and the page does not scroll sideways", async () => {
    for (const name of figurePages) {
      await phone.goto(`${base}/${name}`);
      problems(name, await inspectFigures(phone), "dark");
    }
  });

  await check("coal and ayu show the dark figures too; a screen reader meets each figure once", async () => {
    for (const theme of DARK_THEMES.filter((t) => t !== "navy")) {
      await phone.evaluate((t) => localStorage.setItem("mdbook-theme", t), theme);
      await phone.goto(`${base}/${figurePages[0]}`);
      problems(`${figurePages[0]} (${theme})`, await inspectFigures(phone), "dark");
    }
    const alts = await phone.locator("main .figure img").evaluateAll((imgs) => [...new Set(imgs.map((i) => i.alt))]);
    assert(alts.length > 0, "no figures on the page");
    for (const alt of alts) {
      // getByRole looks in the accessibility tree, which leaves out what display: none hides.
      const times = await phone.locator("main").getByRole("img", { name: alt, exact: true }).count();
      assert(times === 1, `the accessibility tree has the figure ${JSON.stringify(alt)} ${times} times, not once`);
    }
  });

  await check("no figure draws text past its canvas", async () => {
    const files = readdirSync(path.join(buildDir, "figures")).filter((name) => name.endsWith(".svg")).sort();
    assert(files.length > 0, "no SVG files in figures/");
    const outside = [];
    for (const file of files) {
      await page.goto(`${base}/figures/${file}`);
      const spill = await page.evaluate(() => {
        const root = document.documentElement.getBoundingClientRect();
        return [...document.querySelectorAll("text")].map((t) => [t.textContent, t.getBoundingClientRect()])
          .filter(([, r]) => r.left < root.left - 1 || r.right > root.right + 1 || r.top < root.top - 1 || r.bottom > root.bottom + 1)
          .map(([text, r]) => `${JSON.stringify(text.slice(0, 40))} at x ${Math.round(r.left)} to ${Math.round(r.right)}, y ${Math.round(r.top)} to ${Math.round(r.bottom)} (canvas ${Math.round(root.width)} x ${Math.round(root.height)})`);
      });
      outside.push(...spill.map((s) => `${file}: ${s}`));
    }
    assert(outside.length === 0, outside.join("\n"));
  });
  await phone.close();

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
