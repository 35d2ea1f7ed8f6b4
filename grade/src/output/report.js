// Builds the grade report from the JSON in #grade-data. Every text that comes from a submission
// is set with textContent, never as markup.
(function () {
  "use strict";
  const book = JSON.parse(document.getElementById("grade-data").textContent);
  const exercises = book.settings.exercises;
  const rows = book.rows;

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== undefined && value !== null) node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === undefined || child === null) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const svgNs = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, text) {
    const node = document.createElementNS(svgNs, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const fmt = (x) => String(Math.round(x * 100) / 100);
  const studentLink = (id) => "#student=" + encodeURIComponent(id);

  // Summary and rule.
  const totals = rows.map((r) => r.total);
  const mean = totals.length ? totals.reduce((a, b) => a + b, 0) / totals.length : 0;
  const where = book.settings.backend === "sim" ? "in the simulator (no GPU)" : "on " + book.settings.device;
  const seed = book.settings.seed === null ? "the public seed" : "seed " + book.settings.seed;
  const sizes = book.settings.sizes.length ? ", extra sizes " + book.settings.sizes.join(", ") : "";
  document.getElementById("summary").textContent =
    `${rows.length} submissions, ${exercises.length} exercises, checked ${where} with ${seed}${sizes}. ` +
    `Mean total ${fmt(mean)} of ${rows.length ? rows[0].max : 0}.`;
  document.getElementById("rule").textContent = book.settings.scoring_rule;

  // The class table, sortable by any column.
  const columns = [
    { key: "submission", label: "Submission", text: true, value: (r) => r.submission },
    { key: "name", label: "Handed in as", text: true, value: (r) => r.name },
  ];
  exercises.forEach((e, i) =>
    columns.push({ key: e.id, label: e.id, title: `${e.title} (${e.points} points)`, value: (r) => (r.cells[i] ? r.cells[i].points : -1) })
  );
  columns.push({ key: "total", label: "Total", value: (r) => r.total });
  const table = document.getElementById("grades");
  const headRow = el("tr");
  let order = rows.slice();
  let sorted = { key: null, dir: "ascending" };

  function renderBody() {
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const row of order) {
      const tr = el("tr", { "data-submission": row.submission });
      tr.append(el("td", { class: "name" }, el("a", { href: studentLink(row.submission) }, row.submission)));
      tr.append(el("td", { class: "name handed-in" }, row.name));
      row.cells.forEach((cell, i) => {
        if (!cell) {
          tr.append(el("td", { class: "ungraded", title: "not graded yet" }, "–"));
          return;
        }
        tr.append(el("td", { class: cell.status, title: cell.message, "data-exercise": exercises[i].id }, fmt(cell.points), el("span", { class: "status" }, cell.status.replace(/_/g, " "))));
      });
      tr.append(el("td", { class: "total" }, `${fmt(row.total)} / ${row.max}`));
      body.append(tr);
    }
  }

  function sortBy(key, dir) {
    const column = columns.find((c) => c.key === key);
    if (!column) return;
    dir = dir || (sorted.key === key && sorted.dir === "ascending" ? "descending" : "ascending");
    const sign = dir === "ascending" ? 1 : -1;
    order = rows.slice().sort((a, b) => {
      const x = column.value(a), y = column.value(b);
      const c = column.text ? String(x).localeCompare(String(y)) : x - y;
      return sign * c || a.submission.localeCompare(b.submission);
    });
    sorted = { key, dir };
    for (const th of headRow.children) {
      th.setAttribute("aria-sort", th.dataset.key === key ? dir : "none");
    }
    renderBody();
  }

  for (const column of columns) {
    const th = el("th", { "data-key": column.key, title: column.title, class: column.text ? "name" : undefined, "aria-sort": "none" }, column.label);
    th.addEventListener("click", () => sortBy(column.key));
    headRow.append(th);
  }
  table.tHead.append(headRow);
  renderBody();

  // A page per student, shown when the address ends in #student=ID.
  const students = document.getElementById("students");
  for (const row of rows) {
    const section = el("section", { class: "student", "data-submission": row.submission });
    section.append(el("h2", {}, row.submission), el("p", {}, `Handed in as “${row.name}”. ${fmt(row.total)} of ${row.max} points.`));
    const detail = el("table", {}, el("tr", {}, el("th", {}, "Exercise"), el("th", {}, "Status"), el("th", {}, "Points"), el("th", {}, "What happened")));
    row.cells.forEach((cell, i) => {
      const e = exercises[i];
      const what = el("td", {});
      if (cell) {
        what.append(el("div", {}, cell.message));
        if (cell.found_at) what.append(el("div", { class: "status" }, "graded file: " + cell.found_at));
        if (cell.details) what.append(el("pre", {}, cell.details));
      } else {
        what.append("Not graded yet.");
      }
      detail.append(el("tr", { class: cell ? cell.status : "ungraded" }, el("td", {}, `${e.id} ${e.title}`), el("td", { class: cell ? cell.status : "ungraded" }, cell ? cell.status.replace(/_/g, " ") : "–"), el("td", {}, cell ? `${fmt(cell.points)} / ${e.points}` : "–"), what));
    });
    section.append(detail, el("p", {}, el("a", { href: "#" }, "Back to the class")));
    students.append(section);
  }

  function route() {
    const hash = decodeURIComponent(location.hash.slice(1));
    const wanted = hash.startsWith("student=") ? hash.slice("student=".length) : null;
    let shown = false;
    for (const section of students.children) {
      const on = section.dataset.submission === wanted;
      section.classList.toggle("shown", on);
      shown = shown || on;
    }
    document.getElementById("class-view").style.display = shown ? "none" : "";
  }
  window.addEventListener("hashchange", route);

  // A histogram of the scores of each exercise, and of the totals.
  function histogram(title, values, max) {
    const step = max <= 10 ? 1 : max / 10;
    const bins = Array.from({ length: Math.floor(max / step) + 1 }, () => 0);
    for (const v of values) bins[Math.min(bins.length - 1, Math.floor(v / step + 1e-9))] += 1;
    const tallest = Math.max(1, ...bins);
    const barWidth = 18, height = 90, width = bins.length * (barWidth + 4) + 4;
    const picture = svg("svg", { width, height: height + 30, role: "img", "aria-label": `${title}: scores` });
    bins.forEach((count, k) => {
      const h = (count / tallest) * height;
      const x = 4 + k * (barWidth + 4);
      const bar = svg("rect", { class: "bar", x, y: height - h + 12, width: barWidth, height: h, "data-count": count });
      bar.append(svg("title", {}, `${fmt(k * step)} points: ${count}`));
      picture.append(bar);
      if (count) picture.append(svg("text", { x: x + 2, y: height - h + 10 }, String(count)));
      picture.append(svg("text", { x: x + 2, y: height + 26 }, fmt(k * step)));
    });
    return el("figure", { class: "histogram" }, el("figcaption", {}, title), picture);
  }
  const histograms = document.getElementById("histograms");
  histograms.classList.add("histograms");
  exercises.forEach((e, i) => {
    const values = rows.map((r) => r.cells[i]).filter(Boolean).map((c) => c.points);
    histograms.append(histogram(`${e.id} ${e.title}`, values, e.points));
  });
  if (rows.length) histograms.append(histogram("Total", totals, rows[0].max));

  // Groups of alike kernels; each pair side by side, the lines the two share marked.
  const similarity = document.getElementById("similarity");
  const nameOf = new Map(rows.map((r) => [r.submission, r.name]));
  const percent = (x) => `${Math.round(x * 100)}%`;
  function kernelView(kernel, shared) {
    const own = new Set(kernel.own_lines), same = new Set(shared);
    const lines = kernel.text.split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    const code = el("table", { class: "code" });
    lines.forEach((text, k) => {
      const kind = same.has(k + 1) ? "shared" : own.has(k + 1) ? "own" : "given";
      code.append(el("tr", { class: kind }, el("td", { class: "number" }, k + 1), el("td", { class: "text" }, text)));
    });
    const heading = el("h4", {}, el("a", { href: studentLink(kernel.submission) }, kernel.submission), " ", el("span", { class: "handed-in" }, `“${nameOf.get(kernel.submission) || kernel.submission}”`));
    return el("div", { class: "kernel", "data-submission": kernel.submission }, heading, code);
  }
  if (!book.similarity.length) {
    similarity.append(el("p", {}, "No pair of kernels is alike beyond what chance and the course's own text explain."));
  } else {
    similarity.append(
      el("p", { class: "hint" }, "Kernels compared after removing comments, whitespace, the exercise's own lines and lines made of the course's hints and solution, with identifiers renamed; pairs no closer to each other than to the model answer are left out. A group is ranked by how unlikely its closest pair's shared text is by chance (in bits: each bit halves the chance), from how few students wrote each shared phrase; phrases many write count nothing. Open a group for the pairs that join it, and a pair for the two kernels side by side. Alike is not copied: look before concluding."),
      el("p", { class: "legend" }, el("span", { class: "shared" }, "shared with the other kernel"), " ", el("span", { class: "own" }, "the student's own, not shared"), " ", el("span", { class: "given" }, "from the exercise's file or the course's text"))
    );
  }
  const groupList = el("ol", { class: "similar-groups" });
  for (const group of book.similarity) {
    const members = el("span", { class: "members" });
    group.members.forEach((id, k) => members.append(k ? ", " : "", el("a", { href: studentLink(id) }, id)));
    const summary = el("summary", {}, `Exercise ${group.exercise}: `, members, ` (${group.members.length} submissions), up to ${percent(group.similarity)} alike, ${Math.round(group.rarity_bits)} bits unlikely`);
    const section = el("details", { class: "similar-group", "data-exercise": group.exercise, "data-members": group.members.join(" ") }, summary);
    const kernelOf = (id) => group.kernels.find((k) => k.submission === id);
    group.pairs.forEach((p) => {
      const pairSummary = el("summary", {}, `${p.a} and ${p.b}: ${percent(p.similarity)} alike, ${Math.round(p.rarity_bits)} bits unlikely, ${p.shared_a.length} of ${kernelOf(p.a).own_lines.length} written lines shared`);
      const sides = el("div", { class: "side-by-side" }, kernelView(kernelOf(p.a), p.shared_a), kernelView(kernelOf(p.b), p.shared_b));
      section.append(el("details", { class: "pair", "data-pair": `${p.a} ${p.b}` }, pairSummary, sides));
    });
    groupList.append(el("li", {}, section));
  }
  if (book.similarity.length) similarity.append(groupList);

  // ?sort=KEY&dir=descending sorts on load, so a link (or a test) can ask for an order.
  const query = new URLSearchParams(location.search);
  if (query.get("sort")) sortBy(query.get("sort"), query.get("dir") || "ascending");
  route();
  document.body.setAttribute("data-rendered", "yes");
})();
