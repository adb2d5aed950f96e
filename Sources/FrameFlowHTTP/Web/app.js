// FrameFlow's fleet page: polls /api/cameras, shows each camera's MJPEG stream and health,
// and adds, restarts and removes cameras. Every string from the server goes into the page
// through textContent or an attribute, never as HTML.
"use strict";

const REFRESH_MS = 2000;
const TILE_WIDTH = 320;
const PAGE_WIDTH = 640;
const LIVE_FPS = 5;
const TOKEN_KEY = "frameflow-token";

const $ = (id) => document.getElementById(id);
const tiles = new Map();  // camera name -> its tile's elements
let cameraName = null;     // the camera page's camera, or null on the grid
let timer = null;

// ---- Requests ----

function cameraPath(name) {
  return "/api/cameras/" + encodeURIComponent(name);
}

// Sends a request; mutating ones carry the token. Resolves to {status, data} (data: parsed
// JSON, or null); rejects only when the server cannot be reached.
async function api(method, path, body, contentType) {
  const headers = {};
  if (method !== "GET") {
    const token = sessionStorage.getItem(TOKEN_KEY) || "";
    if (token) headers["Authorization"] = "Bearer " + token;
  }
  if (body !== undefined) headers["Content-Type"] = contentType;
  const response = await fetch(path, { method, headers, body, cache: "no-store" });
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  return { status: response.status, data };
}

// The sentence for a refused change: the status, what it means, the server's message.
function refusal(reply) {
  const said = reply.data && typeof reply.data.error === "string" ? reply.data.error : "";
  const meaning = {
    400: "400 Bad Request",
    401: "401 Unauthorized: the token is missing or wrong",
    403: "403 Forbidden: this server takes no changes over HTTP",
    404: "404 Not Found",
    409: "409 Conflict",
    413: "413 Payload Too Large",
    429: "429 Too Many Requests: wait a moment",
  }[reply.status] || "the server answered " + reply.status;
  return said ? meaning + ": " + said : meaning;
}

function show(element, text, kind) {
  element.textContent = text;
  element.className = "message " + (kind || "");
}

function setConnection(ok) {
  $("connection").textContent = ok ? "" : "the server does not answer";
}

// ---- The grid ----

function makeTile(name) {
  const tile = document.createElement("article");
  tile.className = "tile";
  tile.dataset.camera = name;
  const link = document.createElement("a");
  link.href = "#/camera/" + encodeURIComponent(name);
  const img = document.createElement("img");
  img.alt = "live view of " + name;
  link.append(img);
  const body = document.createElement("div");
  body.className = "body";
  const title = document.createElement("h2");
  const titleLink = document.createElement("a");
  titleLink.href = link.href;
  titleLink.textContent = name;
  title.append(titleLink);
  const state = document.createElement("span");
  state.className = "state";
  const stats = document.createElement("p");
  stats.className = "stats";
  const error = document.createElement("p");
  error.className = "error";
  body.append(title, state, stats, error);
  tile.append(link, body);
  return { tile, img, state, stats, error };
}

function statsText(c) {
  return (
    "fps " + c.fps_in.toFixed(1) + " in / " + c.fps_out.toFixed(1) + " out · " +
    "frames " + c.frames_in + " · dropped " + c.dropped + " · reconnects " + c.reconnects
  );
}

function setState(element, state) {
  element.textContent = state;
  element.className = "state " + (/^[a-z]+$/.test(state) ? state : "");
}

function renderGrid(cameras) {
  const grid = $("grid");
  const seen = new Set();
  for (const c of cameras) {
    seen.add(c.name);
    let t = tiles.get(c.name);
    if (!t) {
      t = makeTile(c.name);
      tiles.set(c.name, t);
      grid.append(t.tile);
    }
    // Streams run only while the grid shows, so the camera page has the connections.
    if (!t.img.getAttribute("src")) {
      t.img.src = cameraPath(c.name) + "/mjpeg?fps=" + LIVE_FPS + "&width=" + TILE_WIDTH;
    }
    setState(t.state, c.state);
    t.stats.textContent = statsText(c);
    t.error.textContent = c.last_error ? "last error: " + c.last_error : "";
  }
  for (const [name, t] of tiles) {
    if (!seen.has(name)) {
      t.img.removeAttribute("src");
      t.tile.remove();
      tiles.delete(name);
    }
  }
  $("grid-empty").hidden = cameras.length > 0;
}

function stopGridStreams() {
  for (const t of tiles.values()) t.img.removeAttribute("src");
}

async function refreshGrid() {
  try {
    const reply = await api("GET", "/api/cameras");
    setConnection(true);
    if (reply.status === 200 && Array.isArray(reply.data) && cameraName === null) renderGrid(reply.data);
  } catch (e) {
    setConnection(false);
  }
}

async function addCamera(event) {
  event.preventDefault();
  const message = $("add-message");
  const text = $("add-text").value;
  if (!text.trim()) {
    show(message, "write a camera block first", "error");
    return;
  }
  const path = "/api/cameras" + ($("add-save").checked ? "?save=true" : "");
  show(message, "adding…");
  try {
    const reply = await api("POST", path, text, "text/plain; charset=utf-8");
    if (reply.status === 201) {
      show(message, "added " + (reply.data && reply.data.name), "ok");
      $("add-text").value = "";
      refreshGrid();
    } else {
      show(message, refusal(reply), "error");
    }
  } catch (e) {
    show(message, "the server does not answer", "error");
  }
}

// ---- The camera page ----

function addHealthRow(dl, label, value) {
  const dt = document.createElement("dt");
  dt.textContent = label;
  const dd = document.createElement("dd");
  dd.textContent = value;
  dl.append(dt, dd);
  return dd;
}

function renderHealth(c) {
  const dl = $("camera-health");
  dl.replaceChildren();
  setState(addHealthRow(dl, "state", c.state), c.state);
  addHealthRow(dl, "fps in / out", c.fps_in.toFixed(1) + " / " + c.fps_out.toFixed(1));
  addHealthRow(dl, "frames in / out", c.frames_in + " / " + c.frames_out);
  addHealthRow(dl, "dropped", String(c.dropped));
  addHealthRow(dl, "reconnects", String(c.reconnects));
  addHealthRow(dl, "last error", c.last_error || "none");
}

// Event times are seconds since 1970 for live sources, since the stream's start for files.
function eventTime(seconds) {
  if (typeof seconds !== "number") return "";
  if (seconds > 1e9) return new Date(seconds * 1000).toLocaleTimeString();
  return seconds.toFixed(2) + " s";
}

function renderEvents(events) {
  const body = $("events").tBodies[0];
  body.replaceChildren();
  for (const e of events) {
    const a = e.after || {};
    const row = body.insertRow();
    const cells = [
      eventTime(a.frame_time),
      String(e.type || ""),
      a.sub_label ? a.label + " (" + a.sub_label + ")" : String(a.label || ""),
      typeof a.top_score === "number" ? a.top_score.toFixed(2) : "",
      Array.isArray(a.current_zones) ? a.current_zones.join(", ") : "",
    ];
    for (const text of cells) row.insertCell().textContent = text;
    const snapshot = row.insertCell();
    if (a.has_snapshot && typeof a.id === "string") {
      const link = document.createElement("a");
      link.href = "/api/events/" + encodeURIComponent(a.id) + "/snapshot.jpg";
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = "snapshot";
      snapshot.append(link);
    }
    row.insertCell().textContent = a.has_clip ? "saved" : "";
  }
  $("events").hidden = events.length === 0;
  $("events-empty").hidden = events.length > 0;
}

async function refreshCamera() {
  const name = cameraName;
  if (name === null) return;
  try {
    const [health, events] = await Promise.all([
      api("GET", cameraPath(name)),
      api("GET", "/api/events?limit=20&camera=" + encodeURIComponent(name)),
    ]);
    setConnection(true);
    if (name !== cameraName) return;
    if (health.status === 200 && health.data) {
      renderHealth(health.data);
    } else if (health.status === 404) {
      show($("camera-message"), "there is no camera named " + name, "error");
      $("camera-live").removeAttribute("src");
    }
    if (events.status === 200 && Array.isArray(events.data)) renderEvents(events.data);
  } catch (e) {
    setConnection(false);
  }
}

async function change(method, suffix, done) {
  const name = cameraName;
  const message = $("camera-message");
  show(message, method === "DELETE" ? "removing…" : "restarting…");
  try {
    const reply = await api(method, cameraPath(name) + suffix);
    if (reply.status === 200) {
      done(name);
    } else {
      show(message, refusal(reply), "error");
    }
  } catch (e) {
    show(message, "the server does not answer", "error");
  }
}

function restartCamera() {
  change("POST", "/restart", (name) => {
    show($("camera-message"), "restarted " + name, "ok");
    refreshCamera();
  });
}

function removeCamera() {
  if (!window.confirm("Remove the camera " + cameraName + "?")) return;
  change("DELETE", "", () => {
    location.hash = "#/";
  });
}

// ---- Routing: #/ is the grid, #/camera/NAME a camera's page ----

function route() {
  const match = /^#\/camera\/(.+)$/.exec(location.hash);
  let name = null;
  if (match) {
    try {
      name = decodeURIComponent(match[1]);
    } catch (e) {
      name = null;
    }
  }
  cameraName = name;
  clearInterval(timer);
  $("grid-page").hidden = name !== null;
  $("camera-page").hidden = name === null;
  if (name === null) {
    $("camera-live").removeAttribute("src");
    document.title = "FrameFlow fleet";
    refreshGrid();
    timer = setInterval(refreshGrid, REFRESH_MS);
  } else {
    stopGridStreams();
    document.title = name + " · FrameFlow fleet";
    $("camera-name").textContent = name;
    $("camera-health").replaceChildren();
    show($("camera-message"), "");
    $("camera-live").src = cameraPath(name) + "/mjpeg?fps=" + LIVE_FPS + "&width=" + PAGE_WIDTH;
    $("camera-snapshot").href = cameraPath(name) + "/snapshot.jpg";
    refreshCamera();
    timer = setInterval(refreshCamera, REFRESH_MS);
  }
}

function start() {
  const token = $("token");
  token.value = sessionStorage.getItem(TOKEN_KEY) || "";
  token.addEventListener("input", () => sessionStorage.setItem(TOKEN_KEY, token.value));
  $("add-form").addEventListener("submit", addCamera);
  $("restart-button").addEventListener("click", restartCamera);
  $("remove-button").addEventListener("click", removeCamera);
  window.addEventListener("hashchange", route);
  route();
}

start();
