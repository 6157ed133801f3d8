/// <reference lib="dom" />
import type { ElementHandle, Page } from "puppeteer-core";
import { credentialAllowedOn } from "../../functions/vault/domains.ts";
import type { ItemSecret } from "../../functions/vault/providers/types.ts";
import type { RunCredentialItem } from "../../functions/vault/run-credentials.ts";
import { totpCodeForFill } from "../../functions/vault/totp.ts";
import type { RunSession } from "../browser/run-session.ts";
import { type ActionResult, changes, describeEl, errText, fail, snapshot, withElement } from "./actions.ts";
import type { CredentialKit } from "./agent.types.ts";
import { fieldInfo, focusField } from "./page-ops.ts";
import type { PageState } from "./page-state/index.ts";
import type { SecretScrubber } from "./secret-scrub.ts";
import type { Action } from "./tools.ts";

/**
 * fill_credential: types a field of a vault item into the page without the model ever seeing it.
 * The model names the credential by its number in the system prompt and the field by id or label
 * (or "totp"); everything that can refuse the fill is checked before the value is revealed:
 *   - the active tab and the element's own document (an iframe may be another site) must both be
 *     on one of the item's domains (credentialAllowedOn: same registrable domain);
 *   - the element must be an input or textarea that takes text, and a concealed value (a password)
 *     goes only into a password field, so that a model cannot post it into a comment box on the
 *     right site.
 * Then the item is revealed, its values handed to the run's SecretScrubber, the field masked
 * (`-webkit-text-security: disc`, so screenshots and the live view show discs and page states read
 * it as secret), the value typed key by key as `type` does, and the result checked in Node. No
 * message ever quotes a value.
 */

export type FillCredentialAction = Extract<Action, { name: "fill_credential" }>;

export interface CredentialFillDeps {
  kit: CredentialKit;
  scrubber: SecretScrubber;
  /** The run's clock, for one-time codes. */
  now: () => number;
}

/** Field types (upper-cased provider types) whose values are passwords. */
const CONCEALED_TYPES = new Set(["CONCEALED", "PASSWORD"]);
const TOTP = "totp";

/** A field as fill_credential resolved it: a stored field, or the item's one-time code. */
type Target = { kind: "field"; fieldId: string; label: string; concealed: boolean } | { kind: "totp"; label: string };

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname || url : url);

function fieldNames(item: RunCredentialItem): string {
  const names = item.fields.map((f) => `${JSON.stringify(f.fieldId)} (${f.label})`);
  if (item.hasTotp) names.push('"totp" (one-time code)');
  return names.join(", ") || "none";
}

/** The item's field `name` (fieldId first, then label, both case-insensitive) or its one-time code; null when none matches. */
function resolveField(item: RunCredentialItem, name: string): Target | null {
  const wanted = name.trim().toLowerCase();
  const field =
    item.fields.find((f) => f.fieldId.toLowerCase() === wanted) ?? item.fields.find((f) => f.label.toLowerCase() === wanted);
  // An OTP field of an item with a TOTP seed means its current code (the stored value is the seed, or nothing).
  if (item.hasTotp && (wanted === TOTP || field?.type.toUpperCase() === "OTP")) return { kind: "totp", label: "one-time code" };
  if (!field) return null;
  return { kind: "field", fieldId: field.fieldId, label: field.label, concealed: CONCEALED_TYPES.has(field.type.toUpperCase()) };
}

/** Runs in the element's frame: the address of the document it lies in (its origin for about:blank or srcdoc frames). */
function documentUrl(el: Element): string {
  const loc = el.ownerDocument.location;
  return /^https?:/.test(loc.href) ? loc.href : (el.ownerDocument.defaultView?.origin ?? loc.href);
}

/** Runs in the element's frame: whether the field takes a password (type=password, or autocomplete naming one). */
function takesPassword(el: Element): boolean {
  const ac = (el.getAttribute("autocomplete") ?? "").toLowerCase();
  return (el instanceof HTMLInputElement && el.type.toLowerCase() === "password") || ac.includes("password");
}

/** Runs in the element's frame: hides what the field shows, whatever its type is or becomes. */
function mask(el: Element): void {
  (el as HTMLElement).style.setProperty("-webkit-text-security", "disc", "important");
}

/** Runs in the element's frame: the focus is on the field (and on its document, when that had the focus). */
function focusOn(el: Element, docHadFocus: boolean): boolean {
  const root = el.getRootNode() as Document | ShadowRoot;
  return root.activeElement === el && (!docHadFocus || el.ownerDocument.hasFocus());
}

/**
 * Types `value` key by key into the focused field, checking before each key that the focus is still
 * there: a page script that moves the focus elsewhere (another frame, say) gets at most nothing.
 */
async function typeSecret(page: Page, h: ElementHandle<Element>, value: string): Promise<boolean> {
  await h.evaluate(focusField, true);
  await h.focus();
  const docHadFocus = await h.evaluate((el) => el.ownerDocument.hasFocus());
  for (const ch of value) {
    if (!(await h.evaluate(focusOn, docHadFocus))) return false;
    await page.keyboard.type(ch, { delay: 5 });
  }
  return true;
}

export function credentialFiller(deps: CredentialFillDeps) {
  const { kit, scrubber } = deps;

  /** The value of `target`, read now; every value of the item goes to the scrubber first. */
  async function revealValue(item: RunCredentialItem, n: number, target: Target): Promise<string | ActionResult> {
    let secret: ItemSecret;
    try {
      secret = await kit.reveal(item.itemId);
    } catch (err) {
      return fail(`Credential ${n} could not be read: ${errText(err)}.`);
    }
    // Every value of the item is scrubbed from then on, except an address field's (a URL is no secret,
    // and scrubbing the site's own address would blind the model on its login page).
    const urlFields = new Set(item.fields.filter((f) => f.type.toUpperCase() === "URL").map((f) => f.fieldId));
    for (const [id, v] of Object.entries(secret.fields)) {
      if (!urlFields.has(id) || (target.kind === "field" && id === target.fieldId)) scrubber.remember(v);
    }
    if (secret.totp) scrubber.remember(secret.totp.secret);
    if (target.kind === "totp") {
      if (!secret.totp) return fail(`Credential ${n} has no one-time code seed in the vault.`);
      const code = await totpCodeForFill(secret.totp, { now: () => new Date(deps.now()) });
      scrubber.remember(code, { always: true });
      return code;
    }
    const value = secret.fields[target.fieldId];
    if (!value) return fail(`Credential ${n} has no value for its field ${JSON.stringify(target.fieldId)}.`);
    return value;
  }

  return async function fillCredential(session: RunSession, state: PageState, a: FillCredentialAction): Promise<ActionResult> {
    const page = session.activePage();
    const n = a.credential;
    const item = kit.items[n - 1];
    if (!item || n < 1) {
      const valid = kit.items.map((it, i) => `${i + 1} (${JSON.stringify(it.label)})`).join(", ");
      return fail(`There is no credential ${n}; the credentials are ${valid || "none"}.`);
    }
    const target = resolveField(item, a.field);
    if (!target) return fail(`Credential ${n} has no field ${JSON.stringify(a.field)}; its fields are ${fieldNames(item)}.`);
    const el = describeEl(state, a.index);
    const offSite = (where: string, url: string) =>
      fail(
        `${where} is on ${hostOf(url)}, which is not one of credential ${n}'s domains (${item.domains.join(", ") || "none"}); ` +
          "credentials only fill on their own sites.",
      );

    return withElement(page, state, a.index, async (h) => {
      // Where the value would go, checked before it is revealed.
      if (!credentialAllowedOn(item.domains, page.url())) return offSite("The page", page.url());
      const docUrl = await h.evaluate(documentUrl);
      if (!credentialAllowedOn(item.domains, docUrl)) return offSite(`${el} (in a frame)`, docUrl);
      const info = await h.evaluate(fieldInfo);
      if (!info.editable || (info.tag !== "input" && info.tag !== "textarea"))
        return fail(`${el} is not a text field (it is a ${info.tag}${info.type ? ` ${info.type}` : ""}).`);
      if (target.kind === "field" && target.concealed && !(await h.evaluate(takesPassword)))
        return fail(
          `${el} is not a password field: the ${target.label} of credential ${n} is a password and fills only into a password ` +
            "input (type=password or autocomplete naming a password).",
        );

      const value = await revealValue(item, n, target);
      if (typeof value !== "string") return value;
      await h.scrollIntoView().catch(() => {});
      // Masked before the first key, so no frame of the live view or a screenshot shows the value.
      await h.evaluate(mask);
      const before = await snapshot(session, page);
      const kept = await typeSecret(page, h, value).catch(async (err) => {
        await before.watch.settled(0);
        throw err;
      });
      await h.evaluate(mask).catch(() => {});
      if (!kept) {
        await before.watch.settled(0);
        return fail(`Stopped filling ${el}: the page moved the focus away from it while the value was typed.`);
      }
      // Read in a separate evaluate (fieldInfo hides masked values) and compared here, never quoted.
      const now = await h
        .evaluate((e) => (e as HTMLInputElement).value)
        .catch(async (err) => {
          await before.watch.settled(0);
          throw err;
        });
      if (now !== value) {
        await before.watch.settled(0);
        return fail(
          `Filled ${el} but it does not hold the ${target.label} of credential ${n} (the page changed or shortened it).`,
        );
      }
      return {
        ok: true,
        message: `Filled ${target.label} of credential ${n} (${JSON.stringify(item.label)}) into ${el}. ${await changes(session, page, before)}`,
        secret: true,
      };
    });
  };
}
