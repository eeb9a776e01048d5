// The browser test of `cudapkgs report`: drives Debian's Chromium with
// playwright-core over the generated page (opened from a file) and checks it
// as a user would see it. Run by TestReportInBrowser (cmd/cudapkgs), which
// writes the expectations from the package sets themselves:
//
//   node check.cjs PLAYWRIGHT_CORE_DIR CHROMIUM PAGE.html EXPECT.json OUTDIR
//
// It prints one line per check and exits 1 when any failed.
"use strict";
const [, , pwDir, chromium, pagePath, expectPath, outDir] = process.argv;
const { chromium: driver } = require(pwDir);
const fs = require("fs");
const path = require("path");
const url = require("url");

const want = JSON.parse(fs.readFileSync(expectPath, "utf8"));
const failures = [];
function check(ok, what) {
  console.log((ok ? "ok   " : "FAIL ") + what);
  if (!ok) failures.push(what);
}

(async () => {
  const browser = await driver.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    const pageURL = url.pathToFileURL(path.resolve(pagePath)).href;
    const errors = [];
    const requests = [];
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.type() + ": " + m.text()); });
    page.on("pageerror", (e) => errors.push("pageerror: " + e.message));
    page.on("request", (r) => { if (r.url() !== pageURL) requests.push(r.url()); });
    await page.goto(pageURL, { waitUntil: "load" });

    const visible = (sel) => page.$$eval(sel, (els) => els.filter((e) => e.getClientRects().length > 0).length);

    // Every CUDA version × product × platform is a cell.
    check((await page.locator("td.cell").count()) === want.cells, `cells: ${await page.locator("td.cell").count()}, want ${want.cells} (sets × products × platforms)`);
    check((await visible("td.cell")) === want.cells, "every cell is shown at first");

    // A platform filter hides that platform's cells, and only those.
    const plat = want.filterPlatform;
    await page.locator(`input[data-filter=platform][value="${plat}"]`).uncheck();
    const perPlatform = want.cells / want.platforms;
    check((await visible(`td.cell[data-platform="${plat}"]`)) === 0, `unchecking ${plat} hides its ${perPlatform} cells`);
    check((await visible("td.cell")) === want.cells - perPlatform, `the other ${want.cells - perPlatform} cells stay`);
    check((await visible(`th[data-col-platform="${plat}"]`)) === 0, `and its column headers`);
    await page.locator(`input[data-filter=platform][value="${plat}"]`).check();

    // A product filter hides that product's cells and its graph nodes.
    const prod = want.filterProduct;
    await page.locator(`input[data-filter=product][value="${prod}"]`).uncheck();
    check((await visible(`td.cell[data-product="${prod}"]`)) === 0, `unchecking ${prod} hides its cells`);
    check((await visible("td.cell")) === want.cells - want.cells / want.products, "the other products' cells stay");
    check((await visible(`svg.graph .node[data-product="${prod}"]`)) === 0, `and its packages in the graph`);
    await page.locator(`input[data-filter=product][value="${prod}"]`).check();
    check((await visible("td.cell")) === want.cells, "checking them again shows every cell");

    // The search box keeps the CUDA versions that match.
    await page.fill("#search", want.search);
    const rows = await visible("#matrix tbody tr");
    check(rows === want.searchRows, `searching "${want.search}" leaves ${rows} rows, want ${want.searchRows}`);
    await page.fill("#search", "");

    // A cell's reasons show on hover (title) and on click (the detail panel).
    const sel = `td.cell[data-cuda="${want.reason.cuda}"][data-product="${want.reason.product}"][data-platform="${want.reason.platform}"]`;
    await page.hover(sel);
    const title = await page.getAttribute(sel, "title");
    check(title !== null && title.includes(want.reason.text), `hovering ${want.reason.cuda}/${want.reason.product}/${want.reason.platform} shows its reason`);
    await page.click(sel);
    const detail = await page.locator("#detail").innerText();
    check(await page.locator("#detail").isVisible() && detail.includes(want.reason.text), "clicking it shows the reason in the detail panel");
    await page.screenshot({ path: path.join(outDir, "report.png") });
    await page.click("#detail button");

    // The graph: a node per package, an edge per dependency, each edge
    // between two drawn nodes.
    const nodes = await page.$$eval("svg.graph .node", (els) => els.map((e) => e.dataset.name));
    check(nodes.length === want.nodes.length && want.nodes.every((n) => nodes.includes(n)), `graph nodes: ${nodes.length}, want ${want.nodes.length}, one per package`);
    const edges = await page.$$eval("svg.graph .edge", (els) => els.map((e) => e.dataset.from + " -> " + e.dataset.to));
    check(edges.length === want.edges.length && want.edges.every((e) => edges.includes(e)), `graph edges: ${edges.length}, want ${want.edges.length}, one per dependency`);
    const boxes = await page.$$eval("svg.graph .node rect", (els) => els.map((r) => { const b = r.getBBox(); return [b.x, b.y, b.width, b.height]; }));
    let overlaps = 0;
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3]) overlaps++;
    }
    check(overlaps === 0, `no two packages' boxes overlap (${overlaps})`);
    await page.locator("#graph").scrollIntoViewIfNeeded();
    await page.locator(`svg.graph .node[data-name="${want.focus}"]`).click();
    await page.locator("#graph").screenshot({ path: path.join(outDir, "graph.png") });

    check(errors.length === 0, "no console errors: " + JSON.stringify(errors));
    check(requests.length === 0, "no network requests: " + JSON.stringify(requests));
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.log(`${failures.length} checks failed`);
    process.exit(1);
  }
})().catch((e) => { console.error(e); process.exit(1); });
