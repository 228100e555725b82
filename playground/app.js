// The Search Conditions playground (docs/server.md, "The playground"). The engine runs in this page
// (the browser build of incident-query, served as /playground/engine.js): every keystroke is parsed with the
// server's catalogue, and the issues, canonical form and explanation shown. The server is asked only for
// what needs its data: a dry run of TriggerIncidentExternalAction (which records nothing) and the timeline
// of an incident, with the credential typed in the connection fields. Plain DOM, no framework, no inline
// script (the page's Content-Security-Policy allows only its own files).
import {
  explain,
  formatPath,
  matchesEverythingByShape,
  safeParseSearchConditions,
  toSearchConditions,
} from "/playground/engine.js";

const $ = (id) => document.getElementById(id);

/** The server's catalogue (custom fields and labels), so that the page's issues are the command's. */
let catalog;
/** The command paths, from the server's OpenAPI document (they carry its base path). */
const commandPaths = {};

function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Creates an element with text and attributes. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

async function fetchJson(url) {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

/** Fills the connection fields from the page's fragment (`#user=…&site=…&key=…`), then removes the key from the URL. */
function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const [name, id] of [
    ["user", "username"],
    ["site", "site"],
    ["key", "apikey"],
  ]) {
    const value = params.get(name);
    if (value !== null) $(id).value = value;
  }
  if (params.has("key")) history.replaceState(null, "", location.pathname + location.search);
}

async function discoverCommands() {
  const document = await fetchJson("/openapi.json");
  for (const [path, item] of Object.entries(document.paths)) {
    const id = item.post?.operationId;
    if (id !== undefined && !path.includes("{")) commandPaths[id] = path;
  }
}

// ---------------------------------------------------------------------------------------------------
// The editor: live issues, canonical form, explain()

/** The parsed JSON of the editor, or undefined when it is not JSON. */
let current;

function check() {
  const text = $("conditions").value;
  const issues = $("issues");
  issues.replaceChildren();
  current = undefined;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    showIssues([{ code: "invalid_json", path: [], message: `Not JSON: ${error.message}` }]);
    clearForms();
    return;
  }
  current = value;
  const result = safeParseSearchConditions(value, { catalog });
  if (!result.success) {
    showIssues(result.issues);
    clearForms();
    return;
  }
  const empty = !Array.isArray(value) && typeof value === "object" && Object.keys(value).length === 0;
  const note = empty
    ? "Valid, but TriggerIncidentExternalAction refuses {}: it would match every incident."
    : matchesEverythingByShape(result.condition)
      ? "Valid, but TriggerIncidentExternalAction refuses it: it matches every incident by its shape alone."
      : result.warnings.length > 0
        ? `Valid, with ${result.warnings.length === 1 ? "1 warning" : `${result.warnings.length} warnings`}: a field name may be misspelt (an unknown field is matched as written).`
        : "No issues.";
  issues.append(
    el("p", { class: empty || note !== "No issues." ? "warning" : "ok", id: "issues-summary" }, note),
  );
  // Possible misspellings of field names (docs/semantics.md 1.1): the condition is valid, the key an open
  // field matched as written; each warning is shown under the conditions, with its fix.
  if (result.warnings.length > 0) showList(result.warnings, "warnings", "warning");
  $("conditions").setAttribute("aria-invalid", "false");
  $("canonical").textContent = JSON.stringify(toSearchConditions(result.condition), null, 2);
  $("explain").textContent = explain(result.condition);
}

function clearForms() {
  $("conditions").setAttribute("aria-invalid", "true");
  $("canonical").textContent = "—";
  $("explain").textContent = "—";
}

function showIssues(list) {
  const issues = $("issues");
  issues.append(
    el(
      "p",
      { class: "error", id: "issues-summary" },
      `${list.length} ${list.length === 1 ? "issue" : "issues"}`,
    ),
  );
  showList(list, "issues", "apply");
}

/**
 * Lists issues or warnings (`kind`: the list's class) under the conditions, each with its path, code and
 * message, and, when it has a `suggestion` (typed detail: never read out of the message), a button that
 * applies it (ids `<prefix>-<index>`).
 */
function showList(list, kind, prefix) {
  const ul = el("ul", kind === "issues" ? { class: "issues" } : { class: "issues warnings", id: "warnings" });
  list.forEach((issue, index) => {
    const path = formatPath(issue.path);
    const li = el(
      "li",
      { "data-code": issue.code, "data-path": path },
      el("code", { class: "path" }, path === "" ? "(root)" : path),
      " ",
      el("code", { class: "code" }, issue.code),
      el("span", { class: "message" }, issue.message),
    );
    const suggestion = issue.suggestion;
    if (suggestion !== undefined) {
      const fix = fixFor(issue, suggestion);
      const apply = el(
        "button",
        { type: "button", class: "apply", id: `${prefix}-${index}` },
        `Use '${suggestion}'`,
      );
      li.append(el("span", { class: "suggestion" }, "Suggestion: ", el("strong", {}, suggestion), " "));
      if (fix === undefined) apply.disabled = true;
      else
        apply.addEventListener("click", () => {
          $("conditions").value = JSON.stringify(fix(), null, 2);
          check();
          $("conditions").focus();
        });
      li.append(apply);
    }
    ul.append(li);
  });
  $("issues").append(ul);
}

const getAt = (root, path) => path.reduce((node, segment) => node?.[segment], root);

/** Sets the value at `path` (the root itself for an empty path); returns the root. */
function setAt(root, path, value) {
  if (path.length === 0) return value;
  getAt(root, path.slice(0, -1))[path[path.length - 1]] = value;
  return root;
}

/**
 * A function that returns the conditions with the suggestion applied (a field renamed in place, a label
 * replaced), or undefined when the issue is not one of those.
 */
function fixFor(issue, suggestion) {
  const path = issue.path;
  if (path.length === 0 || current === undefined) return undefined;
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  if (issue.code === "unknown_field" || issue.code === "possible_misspelling") {
    return () => {
      const copy = structuredClone(current);
      const parent = getAt(copy, parentPath);
      const renamed = Object.fromEntries(
        Object.entries(parent).map(([key, value]) => [key === last ? suggestion : key, value]),
      );
      return setAt(copy, parentPath, renamed);
    };
  }
  const label = issue.found;
  const found = getAt(current, path);
  if (issue.code !== "unknown_label" || label === undefined || typeof found !== "string") return undefined;
  const fixed =
    found === label
      ? suggestion
      : found
          .split("|")
          .map((part) => (part.trim() === label ? suggestion : part.trim()))
          .join("|");
  return () => setAt(structuredClone(current), path, fixed);
}

// ---------------------------------------------------------------------------------------------------
// The server: dry run, timeline

async function command(name, params) {
  const path = commandPaths[name];
  if (path === undefined) throw new Error(`The server's OpenAPI document names no ${name}.`);
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", d3key: $("apikey").value },
    body: JSON.stringify({ Username: $("username").value, Site: $("site").value, CommandParams: params }),
  });
  const body = await response.json().catch(() => ({ Error: `HTTP ${response.status}` }));
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.Error}`);
  return body;
}

function showError(target, message) {
  target.replaceChildren(el("p", { class: "error" }, message));
}

async function dryRun() {
  const result = $("result");
  if (current === undefined) {
    showError(result, "The Search Conditions are not JSON yet.");
    return;
  }
  let triggerData;
  try {
    triggerData = JSON.parse($("triggerdata").value);
  } catch (error) {
    showError(result, `Trigger Data is not JSON: ${error.message}`);
    return;
  }
  result.replaceChildren(el("p", { class: "pending" }, "Asking the server…"));
  try {
    const body = await command("TriggerIncidentExternalAction", {
      "Search Conditions": current,
      "Trigger Data": triggerData,
      "Dry Run": true,
    });
    if (body.error !== "") {
      result.replaceChildren(el("pre", { class: "error", id: "result-error" }, body.error));
      return;
    }
    const data = body.returnData.Data;
    const playbooks = data.PlaybooksToRun ?? [];
    result.replaceChildren(
      el(
        "p",
        { id: "result-incident", class: "ok" },
        "First match: incident ",
        el("strong", {}, data.IncidentNo),
        ` (IncidentId ${data.IncidentId}).`,
      ),
      playbooks.length === 0
        ? el("p", {}, "No playbook of this incident has the trigger 'On Incident External Action'.")
        : el(
            "div",
            {},
            el("p", {}, "The playbooks a real run would start, in order (nothing was run or recorded):"),
            el("ol", { id: "result-playbooks" }, ...playbooks.map((p) => el("li", {}, p.PlaybookName))),
          ),
    );
    $("incident").value = data.IncidentNo;
    await loadTimeline();
  } catch (error) {
    showError(result, error.message);
  }
}

const TIMELINE_COLUMNS = ["Time", "Summary", "EventType", "RiskLevel", "Author", "Note"];

async function loadTimeline() {
  const target = $("timeline-result");
  const incident = $("incident").value;
  if (incident.trim() === "") {
    showError(target, "Name an incident (a dry run fills it in).");
    return;
  }
  try {
    const body = await command("GetIncidentTimelineEntries", {
      "Incident Number": incident,
      Filter: $("filter").value,
      "Sort Order": $("sortorder").value,
    });
    if (body.error !== "") {
      showError(target, body.error);
      return;
    }
    const entries = body.returnData.Data;
    const table = el(
      "table",
      { id: "timeline-table" },
      el(
        "caption",
        {},
        `${entries.length} ${entries.length === 1 ? "entry" : "entries"} of incident ${incident}`,
      ),
      el("thead", {}, el("tr", {}, ...TIMELINE_COLUMNS.map((c) => el("th", { scope: "col" }, c)))),
      el(
        "tbody",
        {},
        ...entries.map((entry) =>
          el("tr", {}, ...TIMELINE_COLUMNS.map((c) => el("td", {}, String(entry[c] ?? "")))),
        ),
      ),
    );
    target.replaceChildren(
      el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Timeline entries" }, table),
    );
  } catch (error) {
    showError(target, error.message);
  }
}

async function init() {
  readFragment();
  try {
    [catalog] = await Promise.all([fetchJson("/playground/catalog.json"), discoverCommands()]);
  } catch (error) {
    showError($("issues"), `The playground could not load its settings: ${error.message}`);
    return;
  }
  $("conditions").addEventListener("input", debounce(check, 120));
  $("conditions").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void dryRun();
    }
  });
  $("run").addEventListener("click", () => void dryRun());
  $("timeline-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void loadTimeline();
  });
  $("sortorder").addEventListener("change", () => void loadTimeline());
  $("filter").addEventListener(
    "input",
    debounce(() => void loadTimeline(), 250),
  );
  check();
  document.body.dataset.ready = "true";
}

void init();
