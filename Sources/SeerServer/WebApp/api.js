// The service's HTTP API, with the keys kept for this tab only (sessionStorage): a key is sent in the
// Authorization header and never in a URL.

const KEYS = "seer.keys";
const ROLES = ["device", "user", "admin"];

/** The keys signed in, by role: `{device, user, admin}` (each may be missing). */
export function keys() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEYS) || "{}");
    return Object.fromEntries(ROLES.filter((r) => typeof stored[r] === "string" && stored[r]).map((r) => [r, stored[r]]));
  } catch {
    return {};
  }
}

export function setKeys(value) {
  const clean = Object.fromEntries(ROLES.filter((r) => value[r]).map((r) => [r, String(value[r]).trim()]));
  sessionStorage.setItem(KEYS, JSON.stringify(clean));
}

export function signOut() {
  sessionStorage.removeItem(KEYS);
}

/**
 * Takes keys from the address's fragment (`#device=…&user=…&admin=…`, as `seer serve --demo` prints
 * it; a fragment never reaches the server), keeps them for this tab, and removes them from the address
 * bar and the tab's history. Returns whether any key was found.
 */
export function adoptKeysFromFragment() {
  const fragment = location.hash.replace(/^#/, "");
  if (!/(^|&)(device|user|admin|key)=/.test(fragment)) return false;
  const params = new URLSearchParams(fragment);
  const found = { ...keys() };
  for (const role of ROLES) if (params.get(role)) found[role] = params.get(role);
  // A single `key=` is taken as a device key, the one the scanner needs.
  if (params.get("key") && !params.get("device")) found.device = params.get("key");
  setKeys(found);
  history.replaceState(null, "", location.pathname + location.search + "#/home");
  return true;
}

/** Which kinds of key each group of routes takes, best first (the API's roles, unchanged). */
const ACCESS = {
  scanner: ["device", "admin"],
  owner: ["user", "admin"],
  inbox: ["user"],
  any: ["device", "user", "admin"],
};

export function canUse(access) {
  const held = keys();
  return ACCESS[access].some((role) => held[role]);
}

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls the API: `access` picks the key; `body` is JSON unless it is a Blob or FormData. */
export async function call(method, path, { access = "any", body, type, signal } = {}) {
  const held = keys();
  const role = ACCESS[access].find((r) => held[r]);
  if (!role) {
    const needed = ACCESS[access].filter((r) => r !== "admin").join(" or ");
    throw new APIError(0, "noKey", `Sign in with a ${needed} key in Settings first.`);
  }
  const headers = { Authorization: `Bearer ${held[role]}`, Accept: "application/json" };
  let payload;
  if (body instanceof Blob) {
    payload = body;
    headers["Content-Type"] = type || body.type;
  } else if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, signal, cache: "no-store", credentials: "omit" });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new APIError(0, "network", "The server cannot be reached.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const problem = data && data.error ? data.error : {};
    throw new APIError(response.status, problem.code || "http", problem.message || `The server answered ${response.status}.`);
  }
  return data;
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp"];

/** Sends a photo to `POST /v1/scans` with the given query (read, mode, region). */
export function scanPhoto(blob, query = {}, signal) {
  const search = new URLSearchParams(query).toString();
  const path = "/v1/scans" + (search ? `?${search}` : "");
  if (IMAGE_TYPES.includes(blob.type)) return call("POST", path, { access: "scanner", body: blob, signal });
  const form = new FormData();
  form.append("photo", blob, blob.name || "photo");
  return call("POST", path, { access: "scanner", body: form, signal });
}
