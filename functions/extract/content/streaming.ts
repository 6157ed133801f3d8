/**
 * Streamed server rendering (React Suspense): the page first sends a placeholder
 * `<template id="B:n">` and later, at the end of the body, the real content in
 * `<div hidden id="S:n">`, which a script moves into place. With scripts off the content sits
 * hidden at the end of the page; this does the move, so it is seen where it belongs.
 */
const SEGMENT = /^S:(\d+)$/;

export function placeStreamedContent(body: Element): void {
  const doc = body.ownerDocument;
  for (const div of body.querySelectorAll("div[hidden][id^='S:']")) {
    const n = SEGMENT.exec(div.getAttribute("id") ?? "")?.[1];
    if (n === undefined) continue;
    const slot = doc.getElementById(`B:${n}`);
    const parent = slot?.parentNode;
    if (!slot || !parent || div.contains(slot)) continue;
    while (div.firstChild) parent.insertBefore(div.firstChild, slot);
    slot.remove();
    div.remove();
  }
}
