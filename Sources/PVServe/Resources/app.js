// The upload page: sends the photo to /v1/analyze (and to /v1/segment, /v1/cutout or /v1/greet for a picture),
// draws the record on a canvas over the photo, and shows the picture and the JSON. No build step, no libraries.
"use strict";

const BODY_BONES = [
  ["nose", "neck"], ["leftEye", "nose"], ["rightEye", "nose"], ["leftEar", "leftEye"], ["rightEar", "rightEye"],
  ["neck", "leftShoulder"], ["neck", "rightShoulder"], ["leftShoulder", "leftElbow"], ["leftElbow", "leftWrist"],
  ["rightShoulder", "rightElbow"], ["rightElbow", "rightWrist"], ["neck", "root"], ["root", "leftHip"], ["root", "rightHip"],
  ["leftHip", "leftKnee"], ["leftKnee", "leftAnkle"], ["rightHip", "rightKnee"], ["rightKnee", "rightAnkle"],
];
const FINGERS = ["thumb", "index", "middle", "ring", "little"];
const HAND_BONES = FINGERS.flatMap((f) => {
  const joints = f === "thumb" ? ["wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip"]
    : ["wrist", f + "MCP", f + "PIP", f + "DIP", f + "Tip"];
  return joints.slice(1).map((j, k) => [joints[k], j]);
});
const SHOWN_CONFIDENCE = 0.1;

const $ = (id) => document.getElementById(id);

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

/** The API's JSON error as one line. */
async function problem(response) {
  try {
    const body = await response.json();
    return `${response.status} ${body.error.code}: ${body.error.message}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** POSTs the photo as the raw body. */
function post(path, file) {
  return fetch(path, { method: "POST", body: file, headers: { "Content-Type": file.type || "application/octet-stream" } });
}

/** Draws the photo and every result of the record; returns what it drew. */
function draw(image, record) {
  const canvas = $("overlay");
  canvas.width = record.width;
  canvas.height = record.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(image, 0, 0, record.width, record.height);
  const W = record.width, H = record.height, line = Math.max(2, Math.min(W, H) / 250);
  const px = (p) => [p[0] * W, (1 - p[1]) * H];
  const drawn = { faces: 0, bodies: 0, hands: 0 };

  for (const face of record.faces || []) {
    const [x, y, w, h] = face.boundingBox;
    ctx.strokeStyle = "#34c759"; ctx.lineWidth = line;
    ctx.strokeRect(x * W, (1 - y - h) * H, w * W, h * H);
    for (const [name, points] of Object.entries(face.landmarks || {})) {
      ctx.fillStyle = name.endsWith("Pupil") ? "#ff3b30" : "#5ac8fa";
      for (const p of points) { const [u, v] = px(p); ctx.fillRect(u - line / 2, v - line / 2, line, line); }
    }
    drawn.faces++;
  }
  const skeleton = (joints, bones, color) => {
    ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = line;
    const ok = (j) => joints[j] && joints[j][2] >= SHOWN_CONFIDENCE;
    for (const [a, b] of bones) {
      if (!ok(a) || !ok(b)) continue;
      const [x1, y1] = px(joints[a]), [x2, y2] = px(joints[b]);
      ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke();
    }
    for (const j of Object.keys(joints)) {
      if (!ok(j)) continue;
      const [u, v] = px(joints[j]);
      ctx.beginPath(); ctx.arc(u, v, line * 1.5, 0, 2 * Math.PI); ctx.fill();
    }
  };
  for (const body of record.bodies || []) { skeleton(body.joints, BODY_BONES, "#ffcc00"); drawn.bodies++; }
  for (const hand of record.hands || []) {
    skeleton(hand.joints, HAND_BONES, hand.chirality === "left" ? "#00c7be" : "#ff9500");
    drawn.hands++;
  }
  canvas.dataset.faces = drawn.faces;
  canvas.dataset.bodies = drawn.bodies;
  canvas.dataset.hands = drawn.hands;
  $("summary").textContent =
    `${record.width}×${record.height}: ${drawn.faces} face(s), ${drawn.bodies} body(ies), ${drawn.hands} hand(s) in ${Math.round(record.elapsed_ms)} ms`;
  return drawn;
}

/** The picture request the form asks for, or null. */
function pictureRequest() {
  const choice = document.querySelector("input[name=picture]:checked").value;
  if (choice === "mask") return ["/v1/segment", "the person mask"];
  if (choice === "cutout") return ["/v1/cutout", "the people on transparency"];
  if (choice === "greet") {
    const background = $("blur").checked ? "blur" : $("color").value;
    return [`/v1/greet?format=png&background=${encodeURIComponent(background)}`, `the greeting over ${background}`];
  }
  return null;
}

async function run(event) {
  event.preventDefault();
  const file = $("photo").files[0];
  if (!file) { setStatus("Pick a photo first.", true); return; }
  const requests = [...document.querySelectorAll("input[name=requests]:checked")].map((c) => c.value);
  if (requests.length === 0) { setStatus("Pick at least one analysis.", true); return; }
  $("run").disabled = true;
  setStatus("Analysing…");
  document.body.dataset.state = "running";
  try {
    const image = await createImageBitmap(file, { imageOrientation: "from-image" });
    const picture = pictureRequest();
    const [analysis, pictured] = await Promise.all([
      post(`/v1/analyze?requests=${requests.join(",")}`, file),
      picture ? post(picture[0], file) : Promise.resolve(null),
    ]);
    if (!analysis.ok) throw new Error(await problem(analysis));
    const record = await analysis.json();
    $("json").textContent = JSON.stringify(record, (k, v) => (typeof v === "string" && v.startsWith("data:") ? v.slice(0, 48) + "…" : v), 2);
    draw(image, record);
    $("picture-figure").hidden = !pictured;
    if (pictured) {
      if (!pictured.ok) throw new Error(await problem(pictured));
      $("picture").src = URL.createObjectURL(await pictured.blob());
      $("picture-caption").textContent = picture[1];
    }
    setStatus("Done.");
    document.body.dataset.state = "done";
  } catch (error) {
    setStatus(error.message, true);
    document.body.dataset.state = "error";
  } finally {
    $("run").disabled = false;
  }
}

$("form").addEventListener("submit", run);
