// The relevance console's page: plain DOM, no build step. Every value shown is set as text (never parsed
// as HTML). The admin key stays in this page's memory and goes out as the API expects it:
// Authorization: Bearer <key>.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
const COMPONENTS = ["bm25", "splade", "dense", "reranker"];
let apiKey = null;

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

// The API's answer as JSON; an error answer throws its status and message ({"error": {...}}).
async function api(method, path, body) {
  if (!apiKey) throw new Error("enter the admin key first");
  const init = { method, headers: { Authorization: "Bearer " + apiKey } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const message = data && data.error ? data.error.message : response.statusText;
    throw new Error(response.status + ": " + message);
  }
  return data;
}

// ---- configurations --------------------------------------------------------------------------------

function buildConfig(fieldset, kind, pipeline, boosts) {
  const side = fieldset.dataset.side;
  fieldset.append(document.getElementById("config-template").content.cloneNode(true));
  fieldset.querySelector("legend").textContent = "Configuration " + side.toUpperCase();
  for (const control of fieldset.querySelectorAll("select, input")) {
    control.id = side + "-" + control.className;
  }
  fieldset.querySelector(".kind").value = kind;
  fieldset.querySelector(".pipeline").append(el("option", { value: pipeline }, pipeline));
  fieldset.querySelector(".boosts").checked = boosts;
  fieldset.querySelector(".kind").addEventListener("change", () => showKind(fieldset));
  showKind(fieldset);
}

function showKind(fieldset) {
  const kind = fieldset.querySelector(".kind").value;
  for (const label of fieldset.querySelectorAll(".for-pipeline")) label.hidden = kind !== "pipeline";
  for (const label of fieldset.querySelectorAll(".for-search")) label.hidden = kind !== "search";
}

function setPipelines(names) {
  for (const select of document.querySelectorAll("select.pipeline")) {
    const chosen = select.value;
    select.replaceChildren(...names.map((name) => el("option", { value: name }, name)));
    if (names.includes(chosen)) select.value = chosen;
  }
}

function readConfig(side) {
  const fieldset = document.getElementById("config-" + side);
  const kind = fieldset.querySelector(".kind").value;
  const index = fieldset.querySelector(".index").value.trim();
  const config = { kind };
  if (index) config.index = index;
  if (kind === "pipeline") {
    config.pipeline = fieldset.querySelector(".pipeline").value;
    return config;
  }
  const extra = fieldset.querySelector(".options").value.trim();
  let options = {};
  if (extra) {
    try {
      options = JSON.parse(extra);
    } catch (exc) {
      throw new Error("configuration " + side + ": the options are not JSON: " + exc.message);
    }
  }
  config.options = Object.assign(
    {
      fusion_method: fieldset.querySelector(".fusion").value,
      boosts: fieldset.querySelector(".boosts").checked,
      rerank: fieldset.querySelector(".rerank").checked,
    },
    options,
  );
  return config;
}

// ---- compare ----------------------------------------------------------------------------------------

function highlightedText(text, highlights) {
  const box = el("p", { class: "text" });
  let at = 0;
  for (const span of [...highlights].sort((x, y) => x.start - y.start)) {
    if (span.start < at) continue;
    box.append(document.createTextNode(text.slice(at, span.start)), el("mark", {}, text.slice(span.start, span.end)));
    at = span.end;
  }
  box.append(document.createTextNode(text.slice(at)));
  return box;
}

function scoreLine(scores) {
  return COMPONENTS.map((name) => name + " " + (scores[name] === null || scores[name] === undefined ? "–" : scores[name].toFixed(3))).join(" · ");
}

function hitCard(hit) {
  const card = el("li", { class: "hit mark-" + hit.mark.kind, "data-chunk-id": hit.chunk_id, "data-mark": hit.mark.kind });
  const head = el("div", { class: "hit-head" });
  head.append(
    el("span", { class: "rank" }, "#" + hit.rank),
    el("span", { class: "mark" }, hit.mark.label),
    el("span", { class: "record" }, hit.doc_id),
    el("span", { class: "section" }, hit.section_label || hit.section || "(no section)"),
    el("span", { class: "score" }, "score " + hit.score.toFixed(4)),
  );
  card.append(head);
  if (hit.title_path) card.append(el("div", { class: "title" }, hit.title_path));
  card.append(el("div", { class: "scores" }, scoreLine(hit.component_scores)));
  card.append(el("div", { class: "route" }, hit.route_note));
  card.append(highlightedText(hit.text, hit.highlights));
  return card;
}

function showColumn(target, column) {
  const facts = el("table", { class: "facts" });
  for (const [name, value] of Object.entries(column.facts)) {
    const row = el("tr");
    row.append(el("th", {}, name), el("td", {}, value));
    facts.append(row);
  }
  const list = el("ol", { class: "hits" });
  list.append(...column.hits.map(hitCard));
  if (!column.hits.length) list.append(el("li", { class: "muted" }, "no hits"));
  target.replaceChildren(el("h3", {}, column.name + ": " + JSON.stringify(column.configuration)), facts, list);
}

async function runCompare(event) {
  event.preventDefault();
  showError("");
  const button = document.getElementById("compare");
  button.disabled = true;
  try {
    const body = {
      question: document.getElementById("question").value,
      size: Number(document.getElementById("size").value) || 10,
      a: readConfig("a"),
      b: readConfig("b"),
    };
    const answer = await api("POST", "/v1/admin/console/compare", body);
    showColumn(document.getElementById("column-a"), answer.columns[0]);
    showColumn(document.getElementById("column-b"), answer.columns[1]);
    const d = answer.diff;
    document.getElementById("diff-summary").textContent =
      `${d.shared} hits in both (${d.same_rank} at the same rank, ${d.moved} moved), ` +
      `${d.only_a} only in A, ${d.only_b} only in B`;
  } catch (exc) {
    showError(exc.message);
  } finally {
    button.disabled = false;
  }
}

// ---- runs -------------------------------------------------------------------------------------------

function drawPlot(plot) {
  const svg = document.getElementById("runs-plot");
  const legend = document.getElementById("runs-legend");
  svg.replaceChildren();
  legend.replaceChildren();
  if (!plot || !plot.series.length) return;
  svg.setAttribute("viewBox", `0 0 ${plot.width} ${plot.height}`);
  const left = plot.left, right = plot.left + plot.inner_width, bottom = plot.top + plot.inner_height;
  svg.append(svgEl("line", { x1: left, y1: plot.top, x2: left, y2: bottom, class: "axis" }));
  svg.append(svgEl("line", { x1: left, y1: bottom, x2: right, y2: bottom, class: "axis" }));
  for (const tick of plot.y_ticks) {
    svg.append(svgEl("line", { x1: left, y1: tick.position, x2: right, y2: tick.position, class: "grid" }));
    svg.append(svgEl("text", { x: left - 4, y: tick.position + 4, "text-anchor": "end", class: "tick" }, tick.label));
  }
  plot.x_ticks.forEach((tick, i) => {
    const anchor = plot.x_ticks.length === 1 ? "middle" : i === 0 ? "start" : "end";
    svg.append(svgEl("text", { x: tick.position, y: bottom + 18, "text-anchor": anchor, class: "tick" }, tick.label));
  });
  plot.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    // a folder test set's id is its path: the legend shows its last part, the tooltip the whole id
    const name = series.configuration + " · " + series.dataset.replace(/^.*\//, "");
    svg.append(svgEl("polyline", { points: series.polyline, stroke: color, class: "series", "data-series": name }));
    for (const point of series.points) {
      const dot = svgEl("circle", { cx: point.x, cy: point.y, r: point.is_baseline ? 5 : 3.5, fill: point.is_baseline ? "white" : color, stroke: color, class: "point" });
      dot.append(svgEl("title", {}, `${series.configuration} · ${series.dataset}\n${point.run_id} ${point.timestamp}\n${plot.metric} ${point.value.toFixed(4)}${point.is_baseline ? " (baseline)" : ""}`));
      svg.append(dot);
    }
    const item = el("li", {}, name + " (" + series.points.length + " runs)");
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = color; // through the CSSOM: the page's policy refuses style attributes
    item.prepend(swatch);
    legend.append(item);
  });
}

async function loadRuns(metric) {
  const query = metric ? "?metric=" + encodeURIComponent(metric) : "";
  const answer = await api("GET", "/v1/admin/console/runs" + query);
  const select = document.getElementById("metric");
  select.replaceChildren(...answer.metrics.map((name) => el("option", { value: name }, name)));
  if (answer.metric) select.value = answer.metric;
  document.getElementById("runs-state").textContent = answer.runs
    ? `${answer.runs} stored results in ${answer.index}; ${answer.metric} per configuration and dataset (a ring: the baseline run)`
    : `no stored runs in ${answer.index} yet: run biohybrid evaluate or POST /v1/evaluate`;
  drawPlot(answer.plot);
}

// ---- overview ---------------------------------------------------------------------------------------

function fillTable(table, header, rows) {
  const caption = table.querySelector("caption");
  const head = el("tr");
  head.append(...header.map((name) => el("th", {}, name)));
  table.replaceChildren(caption, head, ...rows.map((cells) => {
    const row = el("tr");
    row.append(...cells.map((cell) => el("td", {}, cell)));
    return row;
  }));
}

async function loadOverview() {
  const answer = await api("GET", "/v1/admin/console/overview");
  setPipelines(answer.pipelines);
  fillTable(document.getElementById("models"), ["role", "name", "state", "model id"],
    answer.models.map((m) => [m.role, m.name, m.state, m.model_id || "–"]));
  fillTable(document.getElementById("resources"), ["resource", "state"],
    answer.resources.map((r) => [r.label, r.state]));
  for (const row of document.querySelectorAll("#resources tr")) {
    const state = row.lastChild.textContent;
    if (row.firstChild.tagName === "TD" && state !== "in sync") row.classList.add("drifted");
  }
  document.getElementById("drift-state").textContent = answer.drifted
    ? `${answer.drifted} resource(s) differ from the repository: run biohybrid apply`
    : "every template and pipeline matches the repository";
}

async function useKey(event) {
  event.preventDefault();
  showError("");
  apiKey = document.getElementById("key").value.trim();
  const state = document.getElementById("key-state");
  state.textContent = "checking the key…";
  try {
    await loadOverview();
    await loadRuns(null);
    state.textContent = "key accepted (admin)";
    document.body.dataset.ready = "yes";
  } catch (exc) {
    state.textContent = "key refused";
    document.body.dataset.ready = "error";
    showError(exc.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  buildConfig(document.getElementById("config-a"), "pipeline", "clinical-minmax", true);
  buildConfig(document.getElementById("config-b"), "search", "clinical-minmax", true);
  document.getElementById("key-form").addEventListener("submit", useKey);
  document.getElementById("compare-form").addEventListener("submit", runCompare);
  document.getElementById("plot-runs").addEventListener("click", () =>
    loadRuns(document.getElementById("metric").value).catch((exc) => showError(exc.message)));
});
