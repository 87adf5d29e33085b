// The rear camera: a live view, the torch where the phone has one, and frames sent a few times a
// second until one is read.

import { h } from "./dom.js";

let active = null;

/** Stops the camera in use, if any (the router calls it on every change of screen). */
export function stopCamera() {
  if (active) active.stop();
  active = null;
}

/** Whether this page may ask for the camera at all (browsers allow it on localhost and HTTPS only). */
export function cameraPossible() {
  return Boolean(window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
}

/**
 * A camera view that sends frames (JPEG blobs) to `read` one after another, at most `fps` a second,
 * until `read` returns something other than null; then calls `found` with it. In `keepGoing` mode it
 * pauses `pause` ms after each find and goes on.
 */
export function cameraView({ read, found, fps = 3, keepGoing = () => false, pause = 2000, torch = () => false, label }) {
  const video = h("video", { playsinline: true, muted: true, "aria-label": label || "Camera view" });
  video.muted = true;
  const status = h("p", { class: "camera-status", role: "status" }, "Starting the camera…");
  const torchButton = h("button", { type: "button", class: "secondary", hidden: true, "aria-pressed": "false" }, "Torch");
  const view = h("div", { class: "camera" }, h("div", { class: "viewfinder" }, video, h("div", { class: "aim", "aria-hidden": "true" })), status, torchButton);
  let stream = null;
  let stopped = false;
  let timer = 0;
  const canvas = document.createElement("canvas");

  const controller = {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (stream) for (const track of stream.getTracks()) track.stop();
      stream = null;
    },
  };

  async function setTorch(on) {
    const track = stream && stream.getVideoTracks()[0];
    if (!track) return;
    try {
      await track.applyConstraints({ advanced: [{ torch: on }] });
      torchButton.setAttribute("aria-pressed", on ? "true" : "false");
    } catch {
      torchButton.hidden = true;
    }
  }
  torchButton.addEventListener("click", () => setTorch(torchButton.getAttribute("aria-pressed") !== "true"));

  function frame() {
    return new Promise((resolve) => {
      const width = video.videoWidth;
      const height = video.videoHeight;
      if (!width || !height) return resolve(null);
      canvas.width = width;
      canvas.height = height;
      canvas.getContext("2d").drawImage(video, 0, 0, width, height);
      canvas.toBlob((blob) => resolve(blob), "image/jpeg", 0.85);
    });
  }

  async function loop() {
    if (stopped) return;
    const started = performance.now();
    let next = 1000 / fps;
    try {
      const blob = await frame();
      const result = blob ? await read(blob) : null;
      if (stopped) return;
      if (result !== null && result !== undefined) {
        found(result, blob);
        if (!keepGoing()) {
          controller.stop();
          return;
        }
        status.textContent = "Read. Point at the next code…";
        next = pause;
      } else {
        status.textContent = "Scanning… hold the code inside the frame.";
      }
    } catch (error) {
      status.textContent = error.message || "The frame could not be read.";
      next = 1500;
    }
    timer = setTimeout(loop, Math.max(0, next - (performance.now() - started)));
  }

  async function start() {
    stopCamera();
    active = controller;
    if (!cameraPossible()) {
      status.textContent = "The camera works only over HTTPS or on localhost. Choose a photo instead.";
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } },
      });
    } catch (error) {
      status.textContent = `The camera is not available (${error.name || "error"}). Choose a photo instead.`;
      return;
    }
    if (stopped) return controller.stop();
    video.srcObject = stream;
    await video.play().catch(() => {});
    const track = stream.getVideoTracks()[0];
    const capabilities = track && track.getCapabilities ? track.getCapabilities() : {};
    if (capabilities.torch) {
      torchButton.hidden = false;
      if (torch()) setTorch(true);
    }
    status.textContent = "Scanning… hold the code inside the frame.";
    loop();
  }

  start();
  return view;
}
