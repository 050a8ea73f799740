/*
 * A small file manager used by the file-rename and file-move tasks, loaded after task-kit.js
 * (seeded randomness and escaping come from it).
 * The page sets window.FM_TASK ("rename" | "move") before loading it.
 */
(() => {
  const { R, esc } = window.rehearsalTaskKit;
  const MODE = window.FM_TASK;
  const STEMS = [
    "budget",
    "notes",
    "report",
    "summary",
    "invoice",
    "draft",
    "agenda",
    "plan",
    "photo",
    "scan",
    "letter",
    "receipt",
    "slides",
    "minutes",
    "schedule",
    "contract",
    "diagram",
    "backup",
    "todo",
    "roster",
  ];
  const EXTS = ["txt", "pdf", "docx", "xlsx", "png", "jpg", "csv", "zip"];
  const SUFFIX = ["final", "2024", "v2", "old", "signed", "draft", "q3", "team"];
  const NEWFOLDERS = [
    "Invoices 2024",
    "Tax papers",
    "Archive Q3",
    "Scans",
    "To review",
    "Client docs",
    "Screenshots",
  ];
  let S = null;

  window.genProblem = () => {
    const nodes = [{ id: "root", name: "Home", type: "folder", parent: null }];
    const folder = (name, parent) => {
      const id = `d${nodes.length}`;
      nodes.push({ id, name, type: "folder", parent });
      return id;
    };
    const top = {};
    for (const n of ["Documents", "Downloads", "Pictures", "Music", "Projects"]) top[n] = folder(n, "root");
    const subs = [
      folder("Work", top.Documents),
      folder("Personal", top.Documents),
      folder("Vacation", top.Pictures),
      folder("Alpha", top.Projects),
      folder("Beta", top.Projects),
    ];
    const stems = R.shuffle(STEMS);
    let si = 0;
    const file = (parent, ext) => {
      const id = `f${nodes.length}`;
      nodes.push({
        id,
        name: `${stems[si++ % stems.length]}${si > stems.length ? si : ""}.${ext ?? R.pick(EXTS)}`,
        type: "file",
        parent,
      });
      return id;
    };
    const goal = { mode: MODE };
    if (MODE === "rename") {
      const where = R.pick(subs);
      const fs = [file(where), file(where), file(where)];
      if (R.int(2)) file(where);
      for (const d of Object.values(top).concat(subs))
        if (d !== where) for (let k = R.int(3); k > 0; k--) file(d);
      const targets = R.shuffle(fs).slice(0, 2);
      goal.folder = where;
      goal.renames = targets.map((id) => {
        const n = nodes.find((x) => x.id === id);
        const dot = n.name.lastIndexOf(".");
        return { id, from: n.name, to: `${n.name.slice(0, dot)}-${R.pick(SUFFIX)}${n.name.slice(dot)}` };
      });
      if (goal.renames[0].to === goal.renames[1].to)
        goal.renames[1].to = goal.renames[1].to.replace("-", "_");
    } else {
      const ext = R.pick(["pdf", "jpg", "csv"]);
      const src = R.pick([top.Downloads, top.Music, subs[1]]);
      const dest = R.pick([top.Documents, top.Pictures, top.Projects].filter((d) => d !== src));
      const movers = [];
      const k = 2 + R.int(2);
      for (let i = 0; i < k; i++) movers.push(file(src, ext));
      for (let i = 0; i < 2 + R.int(2); i++) file(src, R.pick(EXTS.filter((e) => e !== ext)));
      for (const d of Object.values(top).concat(subs))
        if (d !== src) for (let j = R.int(3); j > 0; j--) file(d);
      goal.ext = ext;
      goal.src = src;
      goal.dest = dest;
      goal.movers = movers;
      goal.newName = R.pick(NEWFOLDERS);
    }
    // Shuffle listing order inside folders by shuffling node order (ids keep creation order).
    const order = R.shuffle(nodes.map((n) => n.id));
    S = {
      nodes,
      order,
      goal,
      initial: JSON.parse(JSON.stringify(nodes)),
      cwd: "root",
      selected: [],
      dialog: null,
      nextId: nodes.length,
      ended: null,
    };
    render();
  };

  const node = (id) => S.nodes.find((n) => n.id === id);
  const children = (id) =>
    S.nodes
      .filter((n) => n.parent === id)
      .sort((a, b) =>
        a.type === b.type ? S.order.indexOf(a.id) - S.order.indexOf(b.id) : a.type === "folder" ? -1 : 1,
      );
  const pathOf = (id) => {
    const p = [];
    for (let n = node(id); n; n = n.parent ? node(n.parent) : null) p.unshift(n);
    return p;
  };
  const pathName = (id) =>
    pathOf(id)
      .map((n) => n.name)
      .join("/");
  const isUnder = (id, anc) => pathOf(id).some((n) => n.id === anc);

  function instruction() {
    const g = S.goal;
    if (g.mode === "rename") {
      const [a, b] = g.renames;
      return `In the folder ${pathName(g.folder)}, rename "${a.from}" to "${a.to}" and "${b.from}" to "${b.to}".`;
    }
    return `Create a folder named "${g.newName}" inside ${pathName(g.dest)} and move every .${g.ext} file from ${pathName(g.src)} into it.`;
  }
  const syncForm = window.rehearsalTaskKit.syncForm;
  function render() {
    document.getElementById("query").textContent = instruction();
    const crumbs = pathOf(S.cwd)
      .map((n) => `<button type="button" class="crumb" id="crumb-${n.id}">${esc(n.name)}</button>`)
      .join(" / ");
    const rows = children(S.cwd)
      .map(
        (n) =>
          `<div class="row"><input type="checkbox" id="sel-${n.id}" aria-label="Select ${esc(n.name)}" ${S.selected.includes(n.id) ? "checked" : ""}>` +
          (n.type === "folder"
            ? `<button type="button" class="open" id="open-${n.id}" aria-label="Open folder ${esc(n.name)}">📁 ${esc(n.name)}</button>`
            : `<span class="file">📄 ${esc(n.name)}</span>`) +
          `</div>`,
      )
      .join("");
    let dlg = "";
    if (S.dialog) {
      const d = S.dialog;
      const title =
        d.kind === "new"
          ? "New folder"
          : d.kind === "rename"
            ? `Rename "${esc(node(S.selected[0]).name)}"`
            : `Move ${S.selected.length} item(s)`;
      const field =
        d.kind === "move"
          ? `<label for="dlg-dest">Destination</label><select id="dlg-dest"><option value="">Choose a folder</option>${S.nodes
              .filter((n) => n.type === "folder" && !S.selected.some((s) => isUnder(n.id, s)))
              .map(
                (n) =>
                  `<option value="${n.id}" ${d.dest === n.id ? "selected" : ""}>${esc(pathName(n.id))}</option>`,
              )
              .join("")}</select>`
          : `<label for="dlg-name">${d.kind === "new" ? "Folder name" : "New name"}</label><input type="text" id="dlg-name" autocomplete="off" value="${esc(d.name)}">`;
      dlg =
        `<div class="dialog" role="dialog" aria-modal="true" aria-labelledby="dlg-title"><h4 id="dlg-title">${title}</h4>${field}${d.error ? `<div class="err" role="alert">${esc(d.error)}</div>` : ""}` +
        `<div><button type="button" id="dlg-ok">${d.kind === "move" ? "Move" : d.kind === "new" ? "Create" : "Rename"}</button> <button type="button" id="dlg-cancel">Cancel</button></div></div>`;
    }
    const one = S.selected.length === 1,
      any = S.selected.length > 0;
    document.getElementById("area").innerHTML =
      `<div class="crumbs">${crumbs}</div>` +
      `<div class="toolbar"><button type="button" id="up" ${S.cwd === "root" ? "disabled" : ""}>Up</button><button type="button" id="new-folder">New folder</button>` +
      `<button type="button" id="rename" ${one ? "" : "disabled"}>Rename</button><button type="button" id="move" ${any ? "" : "disabled"}>Move to…</button></div>` +
      `<div class="list" aria-label="Files">${rows || '<p class="empty">This folder is empty.</p>'}</div>${dlg}`;
    syncForm(document.getElementById("area"));
  }
  function check() {
    if (S.ended) return;
    const g = S.goal;
    const same = (a, b) => a && b && a.name === b.name && a.parent === b.parent && a.type === b.type;
    let ok;
    if (g.mode === "rename") {
      ok =
        S.nodes.length === S.initial.length &&
        S.initial.every((n0) => {
          const r = g.renames.find((x) => x.id === n0.id);
          return same(node(n0.id), r ? { ...n0, name: r.to } : n0);
        });
    } else {
      const created = S.nodes.filter((n) => !S.initial.some((n0) => n0.id === n.id));
      const nf = created.length === 1 ? created[0] : null;
      ok =
        !!nf &&
        nf.type === "folder" &&
        nf.name === g.newName &&
        nf.parent === g.dest &&
        S.initial.every((n0) => same(node(n0.id), g.movers.includes(n0.id) ? { ...n0, parent: nf.id } : n0));
    }
    if (ok) {
      S.ended = { reward: 1 };
      core.endEpisode(1, false, "files match the goal");
    }
  }
  const area = document.getElementById("area");
  area.addEventListener("input", (e) => {
    if (S && !S.ended && e.target.id === "dlg-name") S.dialog.name = e.target.value;
  });
  area.addEventListener("change", (e) => {
    if (!S || S.ended) return;
    if (e.target.id === "dlg-dest") {
      S.dialog.dest = e.target.value;
      return;
    }
    const m = /^sel-(\w+)$/.exec(e.target.id);
    if (!m) return;
    S.selected = S.selected.filter((x) => x !== m[1]);
    if (e.target.checked) S.selected.push(m[1]);
    render();
  });
  area.addEventListener("click", (e) => {
    if (!S || S.ended) return;
    const t = e.target.closest("button");
    if (!t) return;
    const id = t.id;
    if (S.dialog && !id.startsWith("dlg-")) return; // modal: only the dialog's buttons work
    const cd = (to) => {
      S.cwd = to;
      S.selected = [];
    };
    if (id.startsWith("open-")) cd(id.slice(5));
    else if (id.startsWith("crumb-")) cd(id.slice(6));
    else if (id === "up") cd(node(S.cwd).parent ?? "root");
    else if (id === "new-folder") S.dialog = { kind: "new", name: "", error: null };
    else if (id === "rename" && S.selected.length === 1) S.dialog = { kind: "rename", name: "", error: null };
    else if (id === "move" && S.selected.length > 0) S.dialog = { kind: "move", dest: "", error: null };
    else if (id === "dlg-cancel") S.dialog = null;
    else if (id === "dlg-ok") {
      const d = S.dialog;
      if (d.kind === "move") {
        if (!d.dest) d.error = "Choose a destination.";
        else {
          const clash = S.selected.find((s) =>
            children(d.dest).some((c) => c.name === node(s).name && c.id !== s),
          );
          if (clash) d.error = `"${node(clash).name}" already exists there.`;
          else {
            for (const s of S.selected) node(s).parent = d.dest;
            S.selected = [];
            S.dialog = null;
          }
        }
      } else {
        const name = d.name.trim();
        const parent = d.kind === "new" ? S.cwd : node(S.selected[0]).parent;
        if (!name || /[\\/]/.test(name)) d.error = "Enter a valid name.";
        else if (
          children(parent).some((c) => c.name === name && !(d.kind === "rename" && c.id === S.selected[0]))
        )
          d.error = "That name is already taken.";
        else if (d.kind === "new") {
          S.nodes.push({ id: `n${S.nextId++}`, name, type: "folder", parent });
          S.dialog = null;
        } else {
          node(S.selected[0]).name = name;
          S.selected = [];
          S.dialog = null;
        }
      }
    } else return;
    render();
    check();
  });

  function fieldAction(sel, want) {
    const el = document.querySelector(sel);
    const cur = el.value;
    if (cur === want) return null;
    if (want.startsWith(cur)) return { type: "type", selector: sel, text: want.slice(cur.length) };
    if (document.activeElement !== el) return { type: "click", selector: sel };
    if (el.selectionStart !== 0 || el.selectionEnd !== cur.length) return { type: "key", keys: "ctrl+a" };
    return { type: "key", keys: "Backspace" };
  }
  const click = (selector) => ({ type: "click", selector });
  function goTo(folderId) {
    if (S.cwd === folderId) return null;
    const want = pathOf(folderId).map((n) => n.id);
    if (want.includes(S.cwd)) return click(`#open-${want[want.indexOf(S.cwd) + 1]}`);
    return click(
      `#crumb-${pathOf(S.cwd)
        .map((n) => n.id)
        .filter((x) => want.includes(x))
        .pop()}`,
    );
  }
  // Make the selection exactly `ids` (all in the current folder).
  function selectExactly(ids) {
    const extra = S.selected.find((x) => !ids.includes(x));
    if (extra) return click(`#sel-${extra}`);
    const missing = ids.find((x) => !S.selected.includes(x));
    return missing ? click(`#sel-${missing}`) : null;
  }
  window.rehearsalOracle = () => {
    if (S.ended) return null;
    const g = S.goal;
    const d = S.dialog;
    if (g.mode === "rename") {
      const r = g.renames.find((x) => node(x.id).name !== x.to);
      if (!r) return null;
      if (d) {
        if (d.kind !== "rename" || S.selected[0] !== r.id) return click("#dlg-cancel");
        return fieldAction("#dlg-name", r.to) || click("#dlg-ok");
      }
      return goTo(node(r.id).parent) || selectExactly([r.id]) || click("#rename");
    }
    const nf = S.nodes.find((n) => n.type === "folder" && n.name === g.newName && n.parent === g.dest);
    if (!nf) {
      if (d)
        return d.kind === "new" && S.cwd === g.dest
          ? fieldAction("#dlg-name", g.newName) || click("#dlg-ok")
          : click("#dlg-cancel");
      return goTo(g.dest) || click("#new-folder");
    }
    const left = g.movers.filter((x) => node(x).parent !== nf.id);
    if (!left.length) return null;
    if (d) {
      if (
        d.kind !== "move" ||
        S.selected.length !== left.length ||
        !left.every((x) => S.selected.includes(x))
      )
        return click("#dlg-cancel");
      if (d.dest !== nf.id) return { type: "select", selector: "#dlg-dest", value: nf.id };
      return click("#dlg-ok");
    }
    return goTo(node(left[0]).parent) || selectExactly(left) || click("#move");
  };
  window.rehearsalSaveState = () => JSON.parse(JSON.stringify(S));
  window.rehearsalRestoreState = (st) => {
    S = JSON.parse(JSON.stringify(st));
    render();
  };
  window.rehearsalVerifierState = () => ({ nodes: S.nodes.map((n) => [n.id, n.name, n.type, n.parent]) });
})();
