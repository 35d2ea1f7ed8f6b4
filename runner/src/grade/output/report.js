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

  // Pairs of kernels that look alike after normalising.
  const similarity = document.getElementById("similarity");
  if (!book.similarity.length) {
    similarity.append(el("p", {}, "No pair of kernels is above the similarity threshold."));
  } else {
    const pairs = el("table", { id: "similar-pairs" }, el("tr", {}, el("th", {}, "Exercise"), el("th", {}, "Submission"), el("th", {}, "Submission"), el("th", {}, "Similarity")));
    for (const p of book.similarity) {
      pairs.append(el("tr", {}, el("td", {}, p.exercise), el("td", { class: "name" }, el("a", { href: studentLink(p.a) }, p.a)), el("td", { class: "name" }, el("a", { href: studentLink(p.b) }, p.b)), el("td", {}, `${Math.round(p.similarity * 100)}%`)));
    }
    similarity.append(el("p", { class: "hint" }, "Kernels compared after removing comments, whitespace and the exercise's own lines, with identifiers renamed; the model answer, and pairs no closer to each other than to it, are left out as the expected answer. Alike is not copied: look before concluding."), pairs);
  }

  // ?sort=KEY&dir=descending sorts on load, so a link (or a test) can ask for an order.
  const query = new URLSearchParams(location.search);
  if (query.get("sort")) sortBy(query.get("sort"), query.get("dir") || "ascending");
  route();
  document.body.setAttribute("data-rendered", "yes");
})();
