// The episode page: draws the server's JSON view and sends the participant's actions.
//
// Actions go one at a time, each with its sequence number; a request that fails on the
// network is sent again with the same number (the server answers a repeat without applying
// it twice), so a lost connection loses nothing. Reloading the page asks the server where the
// episode stands. All text is set with textContent: nothing from the server becomes markup.
"use strict";

(function () {
  const token = document.querySelector('meta[name="episode"]').content;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const api = "/api/episode/" + encodeURIComponent(token);
  const $ = (id) => document.getElementById(id);

  let view = null;          // the latest view from the server
  let nextSeq = 0;          // the number of the next action to send
  const queue = [];         // actions waiting to be sent
  let sending = false;
  let timer = null;         // the real-time noop ticker

  const WORLD_KEYS = {ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up",
                      ArrowDown: "down", " ": "noop", ".": "noop"};
  const PHASE_TITLES = {interaction: "Explore the world", mfp: "Test: the hidden patch",
                        cd: "Test: find the change", planning: "Test: reach the goal"};
  const HELP = {
    interaction: "No goal here: try things, reset as often as you like, then go to the test.",
    mfp: "Watch the recording frame by frame, then pick the patch that fills the hidden " +
         "rectangle of the last frame.",
    cd: "The world may start behaving differently at some point. Play; when you notice the " +
        "change, declare it, browse this run's frames and submit the frame where it began.",
    planning: "Make every ringed cell take the colour the goal shows.",
  };

  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  function hasForm(kind) {
    return !!view && (view.forms || []).some((f) => f.kind === kind);
  }

  function offered(text) {
    return !!view && (view.offered || []).includes(text);
  }

  function canClick() {
    return hasForm("click") || (!!view && (view.offered || []).some((o) => o.startsWith("click [")));
  }

  function canDo(action) {
    if (!view || view.done || view.phase === null) return false;
    if (view.offered) return offered(action) || (action.startsWith("click ") && canClick());
    return hasForm(action.split(" ")[0]);
  }

  function enqueue(action) {
    if (!canDo(action)) {
      say("Not possible now: " + action, true);
      return;
    }
    queue.push(action);
    pump();
  }

  function say(text, isError) {
    const box = $("message");
    box.textContent = text || "";
    box.className = isError ? "error" : "";
  }

  async function request(url, options) {
    // retried on network failure only: every answer from the server is final
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(url, options);
      } catch (err) {
        say("Connection lost; trying again...", true);
        await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** attempt)));
      }
    }
  }

  async function pump() {
    if (sending) return;
    sending = true;
    try {
      while (queue.length) {
        const action = queue.shift();
        const response = await request(api + "/action", {
          method: "POST",
          headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
          body: JSON.stringify({seq: nextSeq, action: action}),
          credentials: "same-origin",
        });
        const body = await readBody(response);
        if (response.ok) {
          show(body);
          if (body.waiting) {   // the world is still busy: ask again until it answers
            queue.length = 0;
            setTimeout(refresh, 500);
          }
        } else {
          queue.length = 0;
          say(body.error || ("refused (" + response.status + ")"), true);
          if (response.status === 409) await refresh();
        }
      }
    } finally {
      sending = false;
    }
  }

  // the JSON of an answer; a body that is not JSON (a proxy's page, a plain-text refusal)
  // becomes an error naming the HTTP status, so no answer is dropped without a word
  async function readBody(response) {
    try {
      return await response.json();
    } catch (error) {
      return {error: "the server answered " + response.status + " without a readable body"};
    }
  }

  async function refresh() {
    const response = await request(api, {credentials: "same-origin"});
    const body = await readBody(response);
    if (!response.ok) {
      say(body.error || "this episode cannot be shown", true);
      return;
    }
    show(body);
    if (body.waiting) setTimeout(refresh, 500);
  }

  function button(label, action, id) {
    const b = el("button", label, {type: "button"});
    if (id) b.id = id;
    b.dataset.action = action;
    b.addEventListener("click", () => enqueue(action));
    return b;
  }

  function drawButtons() {
    const world = $("world-buttons");
    const phase = $("phase-buttons");
    const browse = $("browse");
    world.replaceChildren();
    phase.replaceChildren();
    browse.replaceChildren();
    if (!view || view.done || view.phase === null) return;
    const worldLabels = [["left", "\u2190 left"], ["up", "\u2191 up"], ["down", "\u2193 down"],
                         ["right", "\u2192 right"], ["noop", "noop (wait)"]];
    for (const [kind, label] of worldLabels) {
      if (canDo(kind)) world.append(button(label, kind, "act-" + kind));
    }
    if (view.offered) {   // the autumnbench protocol: its own strings
      for (const text of view.offered) {
        if (text.startsWith("click [") || worldLabels.some(([k]) => k === text)) continue;
        if (/^choose_option_/.test(text) && view.mfp) continue;   // drawn as the options
        phase.append(button(text, text));
      }
      return;
    }
    const labels = {"reset": "Reset the world", "go-to-test": "Go to the test",
                    "declare": "I found the change", "quit": "Give up"};
    for (const kind of ["reset", "go-to-test", "declare", "quit"]) {
      if (hasForm(kind)) phase.append(button(labels[kind], kind, "act-" + kind));
    }
    const browsing = view.mfp || (view.cd && view.cd.declared ? view.cd : null);
    if (browsing && hasForm("watch")) {
      const t = browsing.watching;
      const last = browsing.frames - 1;
      browse.append(el("span", "Frame " + t + " of 0.." + last + " "));
      if (t > 0) browse.append(button("\u25c0 previous frame", "watch " + (t - 1), "prev-frame"));
      if (t < last) browse.append(button("next frame \u25b6", "watch " + (t + 1), "next-frame"));
      if (last > 0) browse.append(button("last frame", "watch " + last, "last-frame"));
      if (hasForm("submit")) {
        browse.append(button("The change began at this frame", "submit " + t, "submit-frame"));
      }
    }
  }

  function drawOptions() {
    const box = $("mfp-box");
    const list = $("options");
    list.replaceChildren();
    const mfp = view && !view.done ? view.mfp : null;
    box.hidden = !mfp;
    if (!mfp) return;
    mfp.options.forEach((rows, k) => {
      const option = el("button", null, {type: "button", class: "option", id: "option-" + k});
      option.append(el("span", "Option " + k, {class: "option-label"}));
      const grid = el("span", null, {class: "patch"});
      grid.style.gridTemplateColumns = "repeat(" + (rows[0] ? rows[0].length : 1) + ", 18px)";
      for (const row of rows) {
        for (const colour of row) {
          const cell = el("span", null, {class: "patch-cell"});
          cell.style.backgroundColor = colour;
          grid.append(cell);
        }
      }
      option.append(grid);
      const action = view.offered ? "choose_option_" + k : "choose " + k;
      option.addEventListener("click", () => enqueue(action));
      list.append(option);
    });
  }

  function show(body) {
    view = body;
    nextSeq = body.seq;
    // where the episode stands, for people reading the page source and for browser tests
    $("play").dataset.seq = String(body.seq);
    $("play").dataset.phase = body.done ? "done" : String(body.phase);
    $("done-box").hidden = !body.done;
    $("board").hidden = !!body.done;
    $("controls").hidden = !!body.done;
    if (body.done) {
      $("phase").textContent = "Finished";
      $("status").textContent = "";
      say("");
      stopTicking();
      drawButtons();
      drawOptions();
      return;
    }
    if (body.phase === null) {
      $("status").textContent = "Waiting for the world...";
      return;
    }
    $("phase").textContent = PHASE_TITLES[body.phase] || body.phase;
    const parts = [HELP[body.phase] || "", "Steps taken: " + body.step + ", left: " + body.budget_left + "."];
    if (body.cd) parts.push("Run " + body.cd.run + ", " + body.cd.run_steps + " steps in it.");
    if (body.planning) parts.push("Horizon: " + body.planning.horizon + " steps.");
    if (body.mfp && body.mfp.action) parts.push("This frame followed: " + body.mfp.action + ".");
    $("status").textContent = parts.join(" ");
    say(body.invalid || body.message || "", !!body.invalid);
    const grid = $("grid");
    grid.src = body.grid.src;
    grid.dataset.size = body.grid.size;
    grid.dataset.cell = body.grid.cell;
    grid.dataset.line = body.grid.line;
    const text = $("harness-text");
    text.hidden = !body.text;
    text.textContent = body.text || "";
    const goalBox = $("goal-box");
    goalBox.hidden = !body.planning;
    if (body.planning) {
      $("goal").src = body.planning.goal.src;
      $("goal-note").textContent = body.planning.goal_cells + " ringed cells must match.";
    }
    drawButtons();
    drawOptions();
    if ($("realtime").checked) startTicking();
  }

  function cellAt(event) {
    const img = $("grid");
    const rect = img.getBoundingClientRect();
    const scale = img.naturalWidth / rect.width;
    const cell = Number(img.dataset.cell), line = Number(img.dataset.line);
    const size = Number(img.dataset.size);
    const px = (event.clientX - rect.left) * scale - line;
    const py = (event.clientY - rect.top) * scale - line;
    const x = Math.floor(px / (cell + line)), y = Math.floor(py / (cell + line));
    if (x < 0 || y < 0 || x >= size || y >= size) return null;
    return [x, y];
  }

  function tick() {
    if (queue.length || sending || !view || view.done) return;
    if (canDo("noop")) enqueue("noop");
  }

  function startTicking() {
    stopTicking();
    const ms = Math.max(100, Math.min(5000, Number($("tick-ms").value) || 500));
    timer = setInterval(tick, ms);
  }

  function stopTicking() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.altKey || event.ctrlKey || event.metaKey) return;
    const kind = WORLD_KEYS[event.key];
    if (kind) {
      event.preventDefault();
      if (canDo(kind)) enqueue(kind);
    } else if (event.key === "r" && canDo("reset")) {
      enqueue("reset");
    }
  });
  $("grid").addEventListener("click", (event) => {
    const cell = cellAt(event);
    if (cell && canClick()) enqueue("click " + cell[0] + " " + cell[1]);
  });
  $("realtime").addEventListener("change", () => ($("realtime").checked ? startTicking() : stopTicking()));
  $("tick-ms").addEventListener("change", () => { if ($("realtime").checked) startTicking(); });
  refresh();
})();
