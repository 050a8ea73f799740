import { describe, expect, it } from "vitest";
import type { Action } from "../../src/core/index.ts";
import { parseDate, parseTime } from "../../src/policies/heuristic-web/date-time.ts";
import { parseInstruction } from "../../src/policies/heuristic-web/instruction.ts";
import { readPage } from "../../src/policies/heuristic-web/page-view.ts";
import { pendingWork, scoreActions } from "../../src/policies/heuristic-web/score.ts";

/**
 * Regression tests for the heuristic on pages it was not written for (issue 17 item 6): the
 * accessibility text below is what the page agent writes for such pages (see the fixture pages in
 * test/fixtures/web-unseen/, played live in heuristic-unseen.test.ts).
 */
function best(
  axtree: string,
  instruction: string,
  history: Array<Action | null> = [],
  visited: string[] = [],
) {
  const scored = scoreActions(readPage(axtree), parseInstruction(instruction), history, new Set(visited));
  return [...scored].sort((a, b) => b.score - a.score)[0]?.action;
}

describe("generic clickable elements", () => {
  it("clicks a span, an li or a div card whose text the instruction names", () => {
    const spans = `[11] span "basin"\n[12] span "fjord"\n[15] span "juniper"\n[16] span "amber"`;
    expect(best(spans, "Click on the word juniper.")).toEqual({ type: "click", elementId: "15" });
    expect(best(spans, 'Click on the word "fjord".')).toEqual({ type: "click", elementId: "12" });
    const list = `[11] li "Banana"\n[12] li "Mango"\n[13] li "Grape"`;
    expect(best(list, "Select Grape from the list below.")).toEqual({ type: "click", elementId: "13" });
    // The delegation container [9] (it has listed elements inside) is not a target.
    const cards = `[9] div\n  [10] div "Oslo 2 nights from $791"\n  [14] div "Cairo 4 nights from $385"`;
    expect(best(cards, "Click the card for the trip to Cairo.")).toEqual({ type: "click", elementId: "14" });
  });

  it("picks the named item before submitting", () => {
    const page = `[11] div "Tiny"\n[12] div "Large"\n[13] div "Medium"\n[16] button "Submit"`;
    const ins = "Choose Medium from the list and click Submit.";
    expect(best(page, ins)).toEqual({ type: "click", elementId: "13" });
    const picked = [{ type: "click", elementId: "13" } as Action];
    expect(best(page, ins, picked, ["medium"])).toEqual({ type: "click", elementId: "16" });
  });
});

describe("date and time inputs", () => {
  it("reads MiniWoB's date and time forms into input values and en-US keystrokes", () => {
    const dec3 = { value: "2016-12-03", keys: "12/03/2016" };
    for (const text of [
      "12/03/2016",
      "Dec 3, 2016",
      "December 3rd, 2016",
      "3 December 2016",
      "03-12-2016",
      "2016-12-03",
    ])
      expect(parseDate(`Enter ${text} as the date and hit submit.`), text).toEqual(dec3);
    expect(parseDate("Enter 13/02/2020")).toEqual({ value: "2020-02-13", keys: "02/13/2020" });
    expect(parseTime("Enter 3:45 PM as the time and press submit.")).toEqual({
      value: "15:45",
      keys: "03:45PM",
    });
    expect(parseTime("Enter 12:05 AM as the time")).toEqual({ value: "00:05", keys: "12:05AM" });
    expect(parseTime("at 09:30")?.value).toBe("09:30");
  });

  it("fills a date input before submitting, and submits once it holds the date", () => {
    const ins = "Enter Dec 3, 2016 as the date and hit submit.";
    const empty = `[11] date value=""\n[13] button "Submit"`;
    expect(pendingWork(readPage(empty), parseInstruction(ins))).toBe(1);
    expect(best(empty, ins)).toEqual({ type: "type", elementId: "11", text: "12/03/2016" });
    const filled = `[11] date value="2016-12-03"\n[13] button "Submit"`;
    expect(best(filled, ins)).toEqual({ type: "click", elementId: "13" });
    const time = `[11] time value=""\n[13] button "Submit"`;
    expect(best(time, "Enter 3:45 PM as the time and press submit.")).toEqual({
      type: "type",
      elementId: "11",
      text: "03:45PM",
    });
  });
});

describe("text comes from the instruction only", () => {
  const page = `[10] textbox "Search the web" value=""\n[11] button "Search"\n[12] button "Feeling Lucky"`;

  it("never types a button's label into the search box", () => {
    const action = best(page, 'Type "blue kettle" into the search box and click "Search".');
    expect(action).toEqual({ type: "type", elementId: "10", text: "blue kettle" });
    const scored = scoreActions(
      readPage(page),
      parseInstruction('Type "blue kettle" and click "Search".'),
      [],
    );
    expect(scored.some((s) => s.action.type === "type" && s.action.text === "Search")).toBe(false);
  });

  it("types the whole phrase after 'search for'", () => {
    expect(best(page, "Use the search box to search for blue kettle, then press Search.")).toEqual({
      type: "type",
      elementId: "10",
      text: "blue kettle",
    });
  });

  it("types into the field the ordinal names, and leaves the other empty", () => {
    const two = `[10] textbox value=""\n[11] textbox value=""\n[12] button "Submit"`;
    const ins = 'Enter "kettle" into the second text field and press Submit.';
    expect(best(two, ins)).toEqual({ type: "type", elementId: "11", text: "kettle" });
    const done = `[10] textbox value=""\n[11] textbox value="kettle" focused\n[12] button "Submit"`;
    expect(pendingWork(readPage(done), parseInstruction(ins))).toBe(0);
    expect(best(done, ins, [{ type: "type", elementId: "11", text: "kettle" }])).toEqual({
      type: "click",
      elementId: "12",
    });
  });
});

describe("MiniWoB instruction forms", () => {
  it("checks every box or radio the instruction selects before submitting", () => {
    const page = `[19] checkbox "USa"\n[22] checkbox "GDKkQ"\n[23] checkbox "xYz"\n[25] button "Submit"`;
    const ins = "Select GDKkQ, xYz and click Submit.";
    expect(pendingWork(readPage(page), parseInstruction(ins))).toBe(2);
    expect(best(page, ins)).toEqual({ type: "click", elementId: "22" });
    const done = `[19] checkbox "USa"\n[22] checkbox "GDKkQ" checked\n[23] checkbox "xYz" checked\n[25] button "Submit"`;
    expect(best(done, ins, [{ type: "click", elementId: "23" }], ["gdkkq", "xyz"])).toEqual({
      type: "click",
      elementId: "25",
    });
  });

  it("names an unlabelled field by the short text above it, focuses fields and recases values", () => {
    const login = `text "Username"\n[19] textbox value=""\ntext "Password"\n[22] textbox value=""\n[23] button "Login"`;
    const ins = 'Enter the username "vina" and the password "US" into the text fields and press login.';
    expect(readPage(login).elements.map((e) => e.name)).toEqual(["Username", "Password", "Login"]);
    expect(best(login, ins)).toEqual({ type: "type", elementId: "19", text: "vina" });
    expect(best(`[13] textbox value=""`, "Focus into the textbox.")).toEqual({
      type: "click",
      elementId: "13",
    });
    expect(
      best(`[13] textbox value=""`, 'Type "JERALD" in all lower case letters in the text input.'),
    ).toEqual({
      type: "type",
      elementId: "13",
      text: "jerald",
    });
  });
});

describe("copy tasks", () => {
  it("types the value the page states for the kind the instruction names, not a decoy", () => {
    const page = `[12] div "Thank you! Your order number is 32-507 . Reference desk: room 996. Order number"
  [17] textbox "Order number" value=""
  [18] button "Submit"`;
    const ins = "Enter the order number shown below into the text box and press Submit.";
    expect(best(page, ins)).toEqual({ type: "type", elementId: "17", text: "32-507" });
    expect(parseInstruction(ins).labelled.map((l) => l.value)).not.toContain("number");
  });
});

describe("collapsibles", () => {
  it("expands a collapsed section before submitting", () => {
    const ins = "Expand the section below and click submit.";
    const collapsed = `[10] tab "Section #12" collapsed\n[14] button "Submit"`;
    expect(best(collapsed, ins)).toEqual({ type: "click", elementId: "10" });
    const open = `[10] tab "Section #12" expanded\ntext "lorem ipsum"\n[14] button "Submit"`;
    expect(best(open, ins, [{ type: "click", elementId: "10" }], ["section #12"])).toEqual({
      type: "click",
      elementId: "14",
    });
    // details/summary says nothing of its state: the first click opens it.
    const summary = `[11] button "Section #8"\n[14] button "Submit"`;
    expect(best(summary, ins)).toEqual({ type: "click", elementId: "11" });
  });

  it("opens sections or tabs while the named link is hidden, not other links", () => {
    const ins = 'Find the link "tips" in the sections below and click it.';
    const first = `[10] button "Getting started" expanded\n[12] link "guide"\n[13] link "reset"\n[14] button "Billing" collapsed`;
    expect(best(first, ins, [{ type: "click", elementId: "10" }], ["getting started"])).toEqual({
      type: "click",
      elementId: "14",
    });
    const tabs = `[11] span "Tab #1"\n[12] span "Tab #2"\n[15] link "bravo"\n[16] link "gale"`;
    const tabIns = 'Switch between the tabs to find and click on the link "echo".';
    expect(best(tabs, tabIns, [{ type: "click", elementId: "11" }], ["tab #1"])).toEqual({
      type: "click",
      elementId: "12",
    });
    const shown = `[11] span "Tab #1"\n[12] span "Tab #2"\n[15] link "echo"\n[16] link "gale"`;
    expect(best(shown, tabIns, [{ type: "click", elementId: "12" }], ["tab #1", "tab #2"])).toEqual({
      type: "click",
      elementId: "15",
    });
  });
});
