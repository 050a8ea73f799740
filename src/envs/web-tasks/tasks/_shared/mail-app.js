/*
 * A small e-mail client used by the email-reply, email-forward and email-delete-find tasks, loaded
 * after task-kit.js (seeded randomness and escaping come from it).
 * The page sets window.MAIL_TASK ("reply" | "forward" | "delete") before loading it.
 */
(() => {
  const { R, esc } = window.rehearsalTaskKit;
  const FIRST = [
    "Ava",
    "Ben",
    "Chloe",
    "Diego",
    "Emma",
    "Felix",
    "Grace",
    "Hugo",
    "Iris",
    "Jonas",
    "Keira",
    "Liam",
    "Maya",
    "Noah",
    "Olga",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
  ];
  const LAST = [
    "Adler",
    "Brooks",
    "Costa",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Hughes",
    "Ito",
    "Jensen",
    "Kowalski",
    "Lopez",
    "Moreau",
    "Nakamura",
    "Olsen",
    "Patel",
  ];
  const DOMAINS = ["example.com", "mail.test", "corp.example", "acme.test"];
  const TOPICS = [
    "Budget review",
    "Team offsite",
    "Server maintenance",
    "Quarterly report",
    "Lunch on Friday",
    "Design feedback",
    "Invoice 4471",
    "Project kickoff",
    "Holiday schedule",
    "Contract renewal",
    "Bug triage",
    "Hiring plan",
    "Travel booking",
    "Newsletter draft",
    "Security training",
    "Customer visit",
    "Office move",
    "Release notes",
    "Parking permits",
    "Book club",
  ];
  const BODIES = [
    "Could you take a look when you have a minute?",
    "Please see the details below and let me know what you think.",
    "Just a quick reminder about this.",
    "I have attached the latest version.",
    "Can we discuss this tomorrow?",
    "Thanks for your help with this!",
  ];
  const REPLIES = [
    "Sounds good, thanks!",
    "I will join.",
    "See you there.",
    "Approved.",
    "Let me check and get back to you.",
    "Thanks, noted.",
    "Works for me.",
  ];
  const PAGE = 6;
  const MODE = window.MAIL_TASK;
  let S = null;

  const person = (f, l) => ({
    name: `${f} ${l}`,
    addr: `${f.toLowerCase()}.${l.toLowerCase()}@${R.pick(DOMAINS)}`,
  });

  window.genProblem = () => {
    const people = R.shuffle(FIRST)
      .slice(0, 8)
      .map((f) => person(f, R.pick(LAST)));
    const topics = R.shuffle(TOPICS);
    const n = 14 + R.int(5);
    const emails = [];
    for (let i = 0; i < n; i++) {
      const p = R.pick(people);
      emails.push({
        id: `m${i}`,
        folder: "inbox",
        from: p.name,
        fromAddr: p.addr,
        subject: topics[i % topics.length] + (i >= topics.length ? " (2)" : ""),
        body: R.pick(BODIES),
        read: R.int(3) === 0,
      });
    }
    for (let i = 0; i < 3; i++) {
      const p = R.pick(people);
      emails.push({
        id: `m${n + i}`,
        folder: R.pick(["archive", "trash"]),
        from: p.name,
        fromAddr: p.addr,
        subject: `Old: ${topics[(n + i) % topics.length]}`,
        body: R.pick(BODIES),
        read: true,
      });
    }
    const goal = { mode: MODE };
    if (MODE === "delete") {
      const victim = people[0];
      const k = 3 + R.int(2);
      const inbox = emails.filter((e) => e.folder === "inbox");
      for (const e of emails)
        if (e.from === victim.name) {
          e.from = people[1].name;
          e.fromAddr = people[1].addr;
        }
      const idx = R.shuffle(inbox.map((_, i) => i)).slice(0, k);
      for (const i of idx) {
        inbox[i].from = victim.name;
        inbox[i].fromAddr = victim.addr;
      }
      goal.sender = victim.name;
      goal.targets = idx.map((i) => inbox[i].id).sort();
      goal.initialTrash = emails.filter((e) => e.folder === "trash").map((e) => e.id);
    } else {
      const inbox = emails.filter((e) => e.folder === "inbox");
      const t = inbox[PAGE + R.int(inbox.length - PAGE)];
      goal.target = t.id;
      goal.text = R.pick(REPLIES);
      const other = people.filter((p) => p.name !== t.from);
      if (MODE === "reply") goal.cc = R.pick(other).addr;
      else goal.to = R.pick(other).addr;
    }
    S = {
      emails,
      goal,
      view: "list",
      folder: "inbox",
      page: 0,
      searchInput: "",
      search: null,
      selected: [],
      open: null,
      compose: null,
      sent: [],
      purged: [],
      confirm: false,
      ended: null,
    };
    render();
  };

  const byId = (id) => S.emails.find((e) => e.id === id);
  function listed() {
    if (S.search !== null) {
      const ws = S.search.toLowerCase().split(/\s+/).filter(Boolean);
      return S.emails.filter(
        (e) =>
          e.folder !== "trash" &&
          ws.every((w) => `${e.from} ${e.fromAddr} ${e.subject}`.toLowerCase().includes(w)),
      );
    }
    return S.emails.filter((e) => e.folder === S.folder);
  }
  function instruction() {
    const g = S.goal;
    if (g.mode === "delete")
      return `Delete every email from ${g.sender} (and nothing else), then empty the Trash.`;
    const t = byId(g.target);
    if (g.mode === "reply")
      return `Reply to the email from ${t.from} with the subject "${t.subject}". Write "${g.text}" as the message and add ${g.cc} in Cc.`;
    return `Forward the email from ${t.from} with the subject "${t.subject}" to ${g.to} with the note "${g.text}", then delete the original email.`;
  }
  const syncForm = window.rehearsalTaskKit.syncForm;
  function render() {
    document.getElementById("query").textContent = instruction();
    const folders = ["inbox", "archive", "sent", "trash"]
      .map(
        (f) =>
          `<button type="button" id="folder-${f}" ${S.search === null && S.folder === f && S.view === "list" ? 'aria-current="page"' : ""}>${f[0].toUpperCase() + f.slice(1)}</button>`,
      )
      .join("");
    let main = "";
    if (S.view === "list") {
      const items = listed();
      const pages = Math.max(1, Math.ceil(items.length / PAGE));
      const rows = items
        .slice(S.page * PAGE, S.page * PAGE + PAGE)
        .map(
          (e) =>
            `<div class="row${e.read ? "" : " unread"}"><input type="checkbox" id="sel-${e.id}" aria-label="Select email from ${esc(e.from)}: ${esc(e.subject)}" ${S.selected.includes(e.id) ? "checked" : ""}>` +
            `<a href="#" id="mail-${e.id}" data-open="${e.id}"><span class="from">${esc(e.folder === "sent" ? `To: ${e.to}` : e.from)}</span> <span class="subj">${esc(e.subject)}</span></a></div>`,
        )
        .join("");
      const title =
        S.search !== null
          ? `Search results for "${esc(S.search)}"`
          : S.folder[0].toUpperCase() + S.folder.slice(1);
      main =
        `<form class="searchbar" role="search" id="search-form"><input type="text" id="mail-search" aria-label="Search mail" placeholder="Search mail" autocomplete="off" value="${esc(S.searchInput)}">` +
        `<button type="submit" id="mail-search-btn">Search</button>${S.search !== null ? '<button type="button" id="clear-search">Clear search</button>' : ""}</form>` +
        `<h3>${title}</h3><div class="toolbar"><button type="button" id="delete-selected">Delete selected</button>` +
        (S.folder === "trash" && S.search === null
          ? '<button type="button" id="empty-trash">Empty trash</button>'
          : "") +
        `</div>` +
        `<div class="list">${rows || '<p class="empty">No messages.</p>'}</div>` +
        `<div class="pager"><button type="button" id="prev-page" ${S.page === 0 ? "disabled" : ""}>&lt; Newer</button> Page ${S.page + 1} of ${pages} <button type="button" id="next-page" ${S.page + 1 >= pages ? "disabled" : ""}>Older &gt;</button></div>`;
      if (S.confirm)
        main += `<div role="dialog" aria-modal="true" aria-labelledby="confirm-title" class="dialog"><p id="confirm-title">Permanently delete all messages in Trash?</p><button type="button" id="confirm-empty">Empty trash</button> <button type="button" id="cancel-empty">Cancel</button></div>`;
    } else if (S.view === "message") {
      const e = byId(S.open);
      main =
        `<div class="toolbar"><button type="button" id="back">&lt; Back</button><button type="button" id="reply">Reply</button><button type="button" id="forward">Forward</button><button type="button" id="delete">Delete</button></div>` +
        `<h3 id="msg-subject">${esc(e.subject)}</h3><div>From: ${esc(e.from)} &lt;${esc(e.fromAddr)}&gt;</div>${e.to ? `<div>To: ${esc(e.to)}</div>` : ""}<p>${esc(e.body)}</p>`;
    } else if (S.view === "compose") {
      const c = S.compose;
      main =
        `<h3>${c.mode === "reply" ? "Reply" : c.mode === "forward" ? "Forward" : "New message"}</h3><form id="compose-form" onsubmit="return false">` +
        `<label for="compose-to">To</label><input type="text" id="compose-to" autocomplete="off" value="${esc(c.to)}">` +
        (c.showCc
          ? `<label for="compose-cc">Cc</label><input type="text" id="compose-cc" autocomplete="off" value="${esc(c.cc)}">`
          : '<button type="button" id="add-cc">Add Cc</button>') +
        `<label for="compose-subject">Subject</label><input type="text" id="compose-subject" autocomplete="off" value="${esc(c.subject)}">` +
        `<label for="compose-body">Message</label><textarea id="compose-body" rows="4">${esc(c.body)}</textarea>` +
        `<div><button type="button" id="send">Send</button> <button type="button" id="discard">Discard</button></div></form>`;
    } else {
      main = `<p>Done.</p>`;
    }
    document.getElementById("area").innerHTML =
      `<nav class="folders" aria-label="Folders">${folders}</nav><main class="main">${main}</main>`;
    syncForm(document.getElementById("area"));
  }

  function checkSent(msg) {
    const g = S.goal;
    const t = byId(g.target);
    const norm = (s) => s.trim().toLowerCase();
    if (g.mode === "reply") {
      return (
        msg.mode === "reply" &&
        msg.ref === g.target &&
        norm(msg.to) === t.fromAddr &&
        norm(msg.cc) === g.cc &&
        msg.body.trim() === g.text
      );
    }
    return (
      msg.mode === "forward" && msg.ref === g.target && norm(msg.to) === g.to && msg.body.trim() === g.text
    );
  }
  function finish(reward, reason) {
    if (S.ended) return;
    S.ended = { reward, reason };
    core.endEpisode(reward, false, reason);
  }
  function afterChange() {
    const g = S.goal;
    if (S.ended) return;
    if (g.mode === "forward") {
      const fw = S.sent.some((m) => checkSent(m));
      if (fw && byId(g.target).folder === "trash") finish(1, "forwarded and deleted the original");
    }
  }

  const area = document.getElementById("area");
  area.addEventListener("input", (e) => {
    if (!S || S.ended) return;
    const id = e.target.id;
    if (id === "mail-search") S.searchInput = e.target.value;
    else if (S.compose && id.startsWith("compose-")) S.compose[id.slice(8)] = e.target.value;
  });
  area.addEventListener("change", (e) => {
    if (!S || S.ended) return;
    const m = /^sel-(m\d+)$/.exec(e.target.id);
    if (!m) return;
    S.selected = S.selected.filter((x) => x !== m[1]);
    if (e.target.checked) S.selected.push(m[1]);
  });
  area.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!S || S.ended || e.target.id !== "search-form") return;
    S.search = S.searchInput.trim();
    if (S.search === "") S.search = null;
    S.page = 0;
    S.selected = [];
    render();
  });
  area.addEventListener("click", (e) => {
    if (!S || S.ended) return;
    const t = e.target.closest("a,button");
    if (!t) return;
    if (t.tagName === "A") e.preventDefault();
    const id = t.id;
    const fm = /^folder-(\w+)$/.exec(id);
    if (fm) {
      S.folder = fm[1];
      S.view = "list";
      S.search = null;
      S.searchInput = "";
      S.page = 0;
      S.selected = [];
      S.confirm = false;
      S.compose = null;
    } else if (t.dataset.open) {
      S.open = t.dataset.open;
      S.view = "message";
      byId(S.open).read = true;
    } else if (id === "next-page") S.page++;
    else if (id === "prev-page") S.page--;
    else if (id === "clear-search") {
      S.search = null;
      S.searchInput = "";
      S.page = 0;
      S.selected = [];
    } else if (id === "back") S.view = "list";
    else if (id === "delete") {
      byId(S.open).folder = "trash";
      S.view = "list";
      S.selected = [];
    } else if (id === "delete-selected") {
      for (const x of S.selected) {
        const m = byId(x);
        if (m.folder === "trash") {
          m.folder = "purged";
          S.purged.push(x);
        } else m.folder = "trash";
      }
      S.selected = [];
      const pages = Math.max(1, Math.ceil(listed().length / PAGE));
      if (S.page >= pages) S.page = pages - 1;
    } else if (id === "empty-trash") S.confirm = true;
    else if (id === "cancel-empty") S.confirm = false;
    else if (id === "confirm-empty") {
      S.confirm = false;
      for (const m of S.emails)
        if (m.folder === "trash") {
          m.folder = "purged";
          S.purged.push(m.id);
        }
      render();
      if (S.goal.mode === "delete") {
        const g = S.goal;
        const want = g.targets.concat(g.initialTrash).sort();
        const got = S.purged.slice().sort();
        const ok = want.length === got.length && want.every((x, i) => x === got[i]);
        finish(
          ok ? 1 : 0,
          ok ? "deleted exactly the emails from the sender" : "deleted the wrong set of emails",
        );
      }
      return;
    } else if (id === "reply" || id === "forward") {
      const m = byId(S.open);
      S.compose = {
        mode: id,
        ref: m.id,
        to: id === "reply" ? m.fromAddr : "",
        cc: "",
        showCc: false,
        subject: `${id === "reply" ? "Re" : "Fwd"}: ${m.subject}`,
        body: "",
      };
      S.view = "compose";
    } else if (id === "add-cc") S.compose.showCc = true;
    else if (id === "discard") {
      S.compose = null;
      S.view = S.open ? "message" : "list";
    } else if (id === "send") {
      const c = S.compose;
      const msg = {
        id: `s${S.sent.length}`,
        mode: c.mode,
        ref: c.ref,
        to: c.to,
        cc: c.cc,
        subject: c.subject,
        body: c.body,
      };
      S.sent.push(msg);
      S.emails.push({
        id: `m${S.emails.length}`,
        folder: "sent",
        from: "Me",
        fromAddr: "me@example.com",
        to: c.to,
        subject: c.subject,
        body: c.body,
        read: true,
      });
      S.compose = null;
      S.view = "message";
      const ok = checkSent(msg);
      if (!ok && S.goal.mode !== "delete") {
        render();
        finish(0, "sent a wrong message");
        return;
      }
      if (ok && S.goal.mode === "reply") {
        render();
        finish(1, "replied correctly");
        return;
      }
    } else return;
    render();
    afterChange();
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
  // Shows the list view with `pred` satisfied by the visible rows, searching for `query` when needed.
  function findInList(query, visible) {
    if (S.confirm) return click("#cancel-empty");
    if (visible()) return null;
    if (S.search !== query) return fieldAction("#mail-search", query) || click("#mail-search-btn");
    return null;
  }
  window.rehearsalOracle = () => {
    if (S.ended) return null;
    const g = S.goal;
    if (g.mode === "delete") {
      const remaining = g.targets.filter((x) => byId(x).folder !== "trash" && byId(x).folder !== "purged");
      if (S.view === "compose") return click("#discard");
      if (S.view === "message") return click("#back");
      if (remaining.length > 0) {
        const rows = () =>
          listed()
            .slice(S.page * PAGE, S.page * PAGE + PAGE)
            .map((e) => e.id);
        // Always find the sender's mail by searching (the task is to find them, not to spot them).
        const a = findInList(
          g.sender,
          () => S.search === g.sender && remaining.every((x) => rows().includes(x)),
        );
        if (a) return a;
        if (!remaining.every((x) => rows().includes(x)))
          return S.page > 0 ? click("#prev-page") : click("#next-page");
        const wrong = S.selected.find((x) => !g.targets.includes(x));
        if (wrong) return click(`#sel-${wrong}`);
        const todo = remaining.find((x) => !S.selected.includes(x));
        if (todo) return click(`#sel-${todo}`);
        return click("#delete-selected");
      }
      if (S.search !== null || S.folder !== "trash") return click("#folder-trash");
      if (!S.confirm) return click("#empty-trash");
      return click("#confirm-empty");
    }
    const t = byId(g.target);
    const sent = S.sent.some((m) => checkSent(m));
    if (g.mode === "forward" && sent) {
      if (S.view === "message" && S.open === g.target) return click("#delete");
      if (S.view === "compose") return click("#discard");
      if (S.view === "message") return click("#back");
    }
    if (S.view === "compose") {
      const c = S.compose;
      if (c.mode !== g.mode || c.ref !== g.target) return click("#discard");
      if (g.mode === "reply") {
        if (c.to !== t.fromAddr) return fieldAction("#compose-to", t.fromAddr);
        if (!c.showCc) return click("#add-cc");
        const a = fieldAction("#compose-cc", g.cc);
        if (a) return a;
      } else {
        const a = fieldAction("#compose-to", g.to);
        if (a) return a;
      }
      return fieldAction("#compose-body", g.text) || click("#send");
    }
    if (S.view === "message") {
      if (S.open === g.target) return click(`#${g.mode}`);
      return click("#back");
    }
    const visible = () =>
      listed()
        .slice(S.page * PAGE, S.page * PAGE + PAGE)
        .some((e) => e.id === g.target);
    const a = findInList(t.subject, visible);
    if (a) return a;
    if (!visible()) return click("#clear-search");
    return click(`#mail-${g.target}`);
  };
  window.rehearsalSaveState = () => JSON.parse(JSON.stringify(S));
  window.rehearsalRestoreState = (st) => {
    S = JSON.parse(JSON.stringify(st));
    render();
  };
  window.rehearsalVerifierState = () => ({
    folders: Object.fromEntries(S.emails.filter((e) => !e.id.startsWith("s")).map((e) => [e.id, e.folder])),
    sent: S.sent,
    purged: S.purged,
  });
})();
