// git hn memory view: builds the timeline, the filters and the relations from the page's JSON
// data block. Author text is hostile: it is only ever set with textContent (never parsed as HTML,
// never an attribute that is a URL or a handler); in-page links are built from checked IDs only.
"use strict";
(function () {
  const doc = JSON.parse(document.getElementById("hn-data").textContent);
  const memories = doc.memories;
  const events = new Map(doc.events.map((e) => [e.id, e]));
  const byId = new Map(memories.map((m) => [m.id, m]));
  const HEX_ID = /^sha256:([0-9a-f]{64})$/;
  const LIFECYCLES = ["active", "superseded", "retracted", "branching", "dependency-missing"];
  const RELATION_TEXT = {supersedes: "supersedes", supersededBy: "superseded by",
    retractedBy: "retracted by", challengedBy: "challenged by"};

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The notice (git-hn): the policy at this commit trusts someone the reference branch's policy
  // does not, or an author shown untrusted is no longer trusted. Plain text, under the heading.
  if (typeof doc.notice === "string" && doc.notice) {
    document.querySelector("header").appendChild(el("p", "notice t", doc.notice));
  }

  // A page with no memory at all: what imports the team's or adds one's own, as the command said
  // it on stderr (its hint, plain text), in place of the bare sentence the page was written with.
  const empty = document.getElementById("empty");
  if (empty && typeof doc.empty === "string" && doc.empty) empty.textContent = doc.empty;

  // A class name derived from a value only when the value is one the page knows.
  function known(prefix, value, list) {
    return list.indexOf(value) >= 0 ? prefix + value : prefix + "other";
  }

  function anchorFor(id) {
    const m = HEX_ID.exec(id);
    return m ? "m-" + m[1] : null;
  }

  // A reference to another memory: an in-page link when it is on this page, plain text otherwise.
  function ref(id, short) {
    const target = anchorFor(id);
    if (target && byId.has(id)) {
      const a = el("a", "ref", short);
      a.href = "#" + target;
      return a;
    }
    return el("code", "ref", short);
  }

  function field(dl, name, value) {
    dl.appendChild(el("dt", null, name));
    const dd = el("dd");
    if (value instanceof Node) dd.appendChild(value); else dd.textContent = value;
    dl.appendChild(dd);
  }

  function list(values) {
    const ul = el("ul", "values");
    for (const v of values) ul.appendChild(el("li", "t", v));
    return ul;
  }

  // The signed name is the author's own choice (anyone can call themselves "Alice"): the short
  // actor ID, which no one else can sign as, always follows it.
  function author(x) {
    const span = el("span", "author");
    span.appendChild(el("span", "name t", x.actorName));
    span.appendChild(el("code", "actor", " (" + x.actor.slice(0, 12) + ")"));
    return span;
  }

  // A retractor's or challenger's standing under the policy at the page's commit, in words and
  // before the name it chose (a stranger can sign as "Alice" with a Cyrillic A): any actor's
  // challenge counts, and only the standing tells a teammate's from a stranger's.
  function standing(e) {
    const trusted = e.standing === "trusted";
    const badge = el("span", "badge standing " + (trusted ? "trusted" : "untrusted"),
                     trusted ? "trusted actor" : "untrusted actor");
    badge.title = e.standingWhy;
    return badge;
  }

  function trustBadge(m) {
    return el("span", "badge " + (m.trust === "qualified" ? "trusted" : "untrusted"), m.trust);
  }

  // Whether a memory applies at the page's commit, said on its row when it does not (a newcomer
  // trial: a verification --applies exact three commits back read "Tests pass at this commit"
  // as a green row like any current one; recall and the brief at that commit leave it out).
  const APPLIES_WHY = {exact: "it applies only at its anchor commit",
    descendants: "it applies only at commits that have its anchor commit in their history",
    subject: "it applies only to a read of its subject"};
  function applies(m) {
    return m.applicability === "applicable";
  }
  function applicabilityBadge(m) {
    const badge = el("span", "badge applicability", m.applicability + " here");
    badge.title = m.applicability === "inapplicable"
      ? "Not at this page's commit: " + (APPLIES_WHY[m.applies.mode] || "see its Details")
        + "; recall and the brief here leave it out"
      : "Whether it applies at this page's commit cannot be decided (" + m.applicability + ")";
    return badge;
  }

  function relationItem(r) {
    const li = el("li", "relation");
    li.appendChild(el("span", "rel-type", RELATION_TEXT[r.type] || "related to"));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(ref(r.memoryId, r.short));
    const e = events.get(r.memoryId);
    if (e) {
      li.appendChild(document.createTextNode(" by "));
      li.appendChild(standing(e));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(author(e));
      if (e.reason) {
        li.appendChild(document.createTextNode(": "));
        li.appendChild(el("span", "reason t", e.reason));
      }
    }
    return li;
  }

  function memoryItem(m) {
    // (a memory that does not apply here, and one the policy does not qualify, each look apart)
    const li = el("li", "memory " + known("lc-", m.lifecycle, LIFECYCLES) + (applies(m) ? "" : " not-here")
                        + (m.trust === "qualified" ? "" : " untrusted"));
    const anchor = anchorFor(m.id);
    if (anchor) li.id = anchor;
    const head = el("div", "head");
    head.appendChild(el("code", "short", m.short));
    head.appendChild(el("time", "date", m.date));
    head.appendChild(author(m));
    head.appendChild(el("span", "badge kind", m.kind));
    head.appendChild(el("span", "badge lifecycle", m.lifecycle));
    head.appendChild(trustBadge(m));
    if (!applies(m)) head.appendChild(applicabilityBadge(m));
    head.appendChild(el("code", "anchor", "@" + m.anchor.commit.slice(0, 12) + " " + m.applies.mode));
    li.appendChild(head);
    li.appendChild(el("p", "summary t", m.summary));
    if (m.relations.length) {
      const ul = el("ul", "relations-of");
      for (const r of m.relations) ul.appendChild(relationItem(r));
      li.appendChild(ul);
    }
    const details = el("details");
    details.appendChild(el("summary", null, "Details"));
    const dl = el("dl");
    field(dl, "ID", m.id);
    field(dl, "Actor", m.actor);
    field(dl, "Stream", m.stream);
    field(dl, "Signed", m.signedTimestamp);
    field(dl, "Anchor commit", m.anchor.commit);
    if (m.anchor.subject) field(dl, "Anchor subject", m.anchor.subject);
    field(dl, "Applies", m.applies.mode + (m.applies.subject ? " " + m.applies.subject : ""));
    field(dl, "Applicability here", m.applicability);
    field(dl, "Evidence", m.evidence);
    if (m.topics.length) field(dl, "Topics", list(m.topics));
    if (m.paths.length) field(dl, "Paths", list(m.paths));
    if (m.evidenceRefs.length) field(dl, "Evidence refs", list(m.evidenceRefs));
    if (m.outcome) field(dl, "Outcome", m.outcome);
    details.appendChild(dl);
    details.appendChild(el("pre", "content t", m.content));
    // a handoff's lists after its content, as `git hn memory show` prints them (labels from the data)
    for (const part of m.handoff) {
      details.appendChild(el("p", "part", part.label));
      const ul = el("ul", "values entries");
      for (const entry of part.entries) ul.appendChild(el("li", "t", entry));
      details.appendChild(ul);
    }
    li.appendChild(details);
    return li;
  }

  // -- timeline and filters ------------------------------------------------------------------

  const timeline = document.getElementById("timeline");
  const rows = memories.map((m) => {
    const li = memoryItem(m);
    timeline.appendChild(li);
    return [m, li];
  });

  const names = new Map();  // actor -> the name on its newest memory (memories are newest first)
  for (const m of memories) if (!names.has(m.actor)) names.set(m.actor, m.actorName);

  const FILTERS = {
    kind: (m) => [m.kind],
    actor: (m) => [m.actor],
    topic: (m) => m.topics,
    path: (m) => m.paths,
    lifecycle: (m) => [m.lifecycle],
    trust: (m) => [m.trust],
    applicability: (m) => [m.applicability],
  };
  function label(name, value) {
    return name === "actor" ? names.get(value) + " (" + value.slice(0, 12) + ")" : value;
  }

  // Each select's options count the memories that match every other active filter (facet
  // counts: with Kind = decision, Actor says how many of each actor's are decisions); an option
  // whose count is 0 stays, so that a choice is never lost, and says (0).
  const selects = {};
  const options = {};  // name -> [[value, option]]
  for (const name of Object.keys(FILTERS)) {
    const select = document.getElementById("f-" + name);
    const values = new Set();
    for (const m of memories) for (const v of FILTERS[name](m)) values.add(v);
    const all = el("option");
    all.value = "";
    select.appendChild(all);
    options[name] = [["", all]];
    const sorted = Array.from(values).sort((a, b) => {
      const x = label(name, a), y = label(name, b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    for (const v of sorted) {
      const option = el("option");
      option.value = v;
      select.appendChild(option);
      options[name].push([v, option]);
    }
    select.addEventListener("change", apply);
    selects[name] = select;
  }

  function matches(m, except) {
    for (const name of Object.keys(selects)) {
      const want = selects[name].value;
      if (name !== except && want !== "" && FILTERS[name](m).indexOf(want) < 0) return false;
    }
    return true;
  }

  function recount() {
    for (const name of Object.keys(selects)) {
      const counts = new Map();
      let total = 0;
      for (const m of memories) {
        if (!matches(m, name)) continue;
        total += 1;
        for (const v of new Set(FILTERS[name](m))) counts.set(v, (counts.get(v) || 0) + 1);
      }
      for (const [v, option] of options[name]) {
        option.textContent = (v === "" ? "all" : label(name, v)) + " (" + (v === "" ? total : counts.get(v) || 0) + ")";
      }
    }
  }

  const count = document.getElementById("count");
  const none = document.getElementById("no-match");
  function apply() {
    // the matching items are put back in order and the others taken out of the list: hiding a
    // long run of list items one by one costs Chromium time quadratic in their number
    const shown = document.createDocumentFragment();
    let n = 0;
    for (const [m, li] of rows) {
      if (matches(m, null)) {
        shown.appendChild(li);
        n += 1;
      }
    }
    timeline.replaceChildren(shown);
    count.textContent = n + " of " + memories.length + " memories shown";
    count.dataset.shown = String(n);
    none.hidden = n > 0 || memories.length === 0;
    recount();
  }
  function reset() {
    for (const name of Object.keys(selects)) selects[name].value = "";
    apply();
  }
  document.getElementById("reset").addEventListener("click", reset);
  document.getElementById("clear").addEventListener("click", reset);
  document.getElementById("filters").addEventListener("submit", (e) => e.preventDefault());
  apply();

  // -- relations: supersession chains from their oldest record, retractions and challenges ----

  // A chain is one flat list, oldest first, each successor after what it supersedes: its length
  // never becomes depth (a peer's 1,500 supersedes would otherwise nest 3,000 levels and crash
  // the renderer). Retractions and challenges are the one nested level under each member.
  function member(m, supersedes) {
    // "<this> supersedes <that>": the successor first, as a sentence reads
    const li = el("li", "node");
    li.appendChild(ref(m.id, m.short));
    li.appendChild(document.createTextNode(" "));
    if (supersedes) {
      const rel = el("span", "rel-type", "supersedes ");
      rel.appendChild(ref(supersedes.id, supersedes.short));
      li.appendChild(rel);
      li.appendChild(document.createTextNode(" "));
    }
    li.appendChild(el("span", "badge kind", m.kind));
    li.appendChild(el("span", "badge lifecycle", m.lifecycle));
    li.appendChild(trustBadge(m));  // (as in the timeline: a chain's members are any actor's)
    if (!applies(m)) li.appendChild(applicabilityBadge(m));
    li.appendChild(author(m));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("span", "summary t", m.summary));
    const ul = el("ul");
    for (const r of m.relations) {
      if (r.type === "supersedes" || (r.type === "supersededBy" && byId.has(r.memoryId))) continue;
      ul.appendChild(relationItem(r));
    }
    if (ul.childNodes.length) li.appendChild(ul);
    return li;
  }
  function chain(root) {
    const item = el("li", "chain");
    const members = el("ol", "members");
    const seen = new Set([root.id]);
    const stack = [[root, null]];
    while (stack.length) {
      const [m, before] = stack.pop();
      members.appendChild(member(m, before));
      const next = m.relations.filter((r) => r.type === "supersededBy" && byId.has(r.memoryId)
                                             && !seen.has(r.memoryId));
      for (let i = next.length - 1; i >= 0; i -= 1) {
        seen.add(next[i].memoryId);
        stack.push([byId.get(next[i].memoryId), m]);
      }
    }
    item.appendChild(members);
    return item;
  }
  const relations = document.getElementById("relations");
  // the oldest first: memories are newest first, so walk them backwards
  for (let i = memories.length - 1; i >= 0; i -= 1) {
    const m = memories[i];
    const supersedes = m.relations.find((r) => r.type === "supersedes");
    const root = !supersedes || !byId.has(supersedes.memoryId);
    if (root && m.relations.some((r) => r.type !== "supersedes")) relations.appendChild(chain(m));
  }
  if (!relations.childNodes.length) relations.appendChild(el("li", "none", "No memory has relations."));
})();
