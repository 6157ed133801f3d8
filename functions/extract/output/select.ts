/**
 * querySelectorAll for the selectors a request brings (include_selectors, exclude_selectors), in
 * time linear in the page. linkedom hands selectors to css-select, which matches a chain right to
 * left and, for a chain of plain compounds, tries every ancestor again at each step:
 * "section div div div div div div div div div div p" on a page 40 divs deep ran for minutes (30
 * deep: 2.5 s), though it is a selector a user might well write and many pages nest that deep.
 *
 * Here a selector's chain is evaluated left to right over the whole page at once: the elements
 * matching its first compound, then those standing in its combinator's relation to one of them
 * (descendant, child, next sibling, later sibling) and matching the next compound, and so on: one
 * pass over the page per compound. css-select still matches each compound on its own element
 * (tags, classes, attributes, pseudo-classes), through an adapter that counts its steps: a
 * pseudo-class holding a selector of its own (`:not(div p)`, `:has(section div p)`) is matched by
 * css-select, which could take as long again, so past SELECTOR_STEPS steps on a page the selector
 * then running throws SelectorTooCostly: the request cannot be answered as asked (an exclusion not
 * applied would leave in what the caller took out), and says so. Selectors this form does not
 * cover (`:scope`, the column combinator) go to css-select whole, under the same budget.
 */
import { compile } from "css-select";
import { parse, type Selector, SelectorType } from "css-what";
import { ELEMENT_NODE } from "./dom.ts";

/**
 * What css-select may spend on one page's selectors (a request's include and exclude lists
 * together), in steps: a parent, an attribute, a text's characters by 16, a child list's nodes by 4
 * (nth-child walks an element's siblings to count its place). 20 million steps take 0.2-0.8 s here;
 * no ordinary selector comes near it on any WCXB page.
 */
export const SELECTOR_STEPS = 20_000_000;

class StepsSpent extends Error {}

/** A page's selectors ran past SELECTOR_STEPS; `selector` is the entry that was running. */
export class SelectorTooCostly extends Error {
  override name = "SelectorTooCostly";
  readonly selector: string;
  constructor(selector: string) {
    super(`selector too costly on this page: ${selector}`);
    this.selector = selector;
  }
}

/** The steps a page's selectors may still take (SELECTOR_STEPS to start with). */
export interface SelectorBudget {
  left: number;
}

export const selectorBudget = (): SelectorBudget => ({ left: SELECTOR_STEPS });

const spend = (c: SelectorBudget, steps: number): void => {
  c.left -= steps;
  if (c.left < 0) throw new StepsSpent("selector too costly on this page");
};

/** css-select's view of linkedom's nodes, every step counted against `c`. */
function adapterFor(c: SelectorBudget) {
  const isTag = (node: Node): node is Element => node.nodeType === ELEMENT_NODE;
  // The page does not change while a selector runs: each child list is copied once.
  const lists = new Map<Node, Node[]>();
  const childrenOf = (node: Node): Node[] => {
    let list = lists.get(node);
    if (!list) {
      list = [...node.childNodes];
      lists.set(node, list);
    }
    spend(c, 1 + (list.length >> 2));
    return list;
  };
  return {
    isTag,
    getAttributeValue: (el: Element, name: string) => {
      spend(c, 1);
      return el.getAttribute(name) ?? undefined;
    },
    getChildren: childrenOf,
    getName: (el: Element) => el.localName.toLowerCase(),
    getParent: (el: Element) => {
      spend(c, 1);
      const p = el.parentNode;
      return p && isTag(p) ? p : null;
    },
    getSiblings: (node: Node) => (node.parentNode ? childrenOf(node.parentNode) : [node]),
    prevElementSibling: (node: Node) => {
      spend(c, 1);
      return (node as Element).previousElementSibling ?? null;
    },
    getText: (node: Node) => {
      const text = node.textContent ?? "";
      spend(c, 1 + (text.length >> 4));
      return text;
    },
    hasAttrib: (el: Element, name: string) => {
      spend(c, 1);
      return el.hasAttribute(name);
    },
    // Nodes inside another of the list go (only css-select's own selectAll calls this).
    removeSubsets: (nodes: Node[]) => {
      const all = new Set(nodes);
      return nodes.filter((n) => {
        for (let p = n.parentNode; p; p = p.parentNode) {
          spend(c, 1);
          if (all.has(p)) return false;
        }
        return true;
      });
    },
  };
}

type Combinator = SelectorType.Descendant | SelectorType.Child | SelectorType.Adjacent | SelectorType.Sibling;
const COMBINATORS = new Set<string>([SelectorType.Descendant, SelectorType.Child, SelectorType.Adjacent, SelectorType.Sibling]);

/** A complex selector as its compounds, each with the combinator that leads to it (none for the first). */
function chainOf(tokens: Selector[]): { via: Combinator | null; compound: Selector[] }[] | null {
  const chain: { via: Combinator | null; compound: Selector[] }[] = [{ via: null, compound: [] }];
  for (const t of tokens) {
    if (t.type === SelectorType.Parent || t.type === SelectorType.ColumnCombinator) return null;
    if (t.type === SelectorType.Pseudo && t.name === "scope") return null;
    if (COMBINATORS.has(t.type)) chain.push({ via: t.type as Combinator, compound: [] });
    else chain.at(-1)?.compound.push(t);
  }
  // A leading or trailing combinator: not a selector the syntax check lets through; leave it to css-select.
  return chain.every((c) => c.compound.length > 0) ? chain : null;
}

/** The page's elements in document order, with each one's parent and previous element sibling (indexes, -1 for none). */
function elementsOf(document: Document): { els: Element[]; parent: Int32Array; prev: Int32Array } {
  const els: Element[] = [];
  const parents: number[] = [];
  const prevs: number[] = [];
  // Iterative pre-order walk from the document's own elements (what follows </html> too), as
  // querySelectorAll walks; a <template>'s content is not part of the page (nor in a browser).
  const stack: { el: Element; parent: number }[] = [];
  const push = (first: Element | null, parent: number) => {
    const kids: Element[] = [];
    for (let k = first; k; k = k.nextElementSibling) kids.push(k);
    for (let k = kids.length - 1; k >= 0; k--) stack.push({ el: kids[k] as Element, parent });
  };
  push((document as unknown as ParentNode).firstElementChild, -1);
  const lastChild = new Map<number, number>();
  while (stack.length > 0) {
    const { el, parent } = stack.pop() as { el: Element; parent: number };
    const i = els.length;
    els.push(el);
    parents.push(parent);
    prevs.push(lastChild.get(parent) ?? -1);
    lastChild.set(parent, i);
    if (el.localName !== "template") push(el.firstElementChild, i);
  }
  return { els, parent: Int32Array.from(parents), prev: Int32Array.from(prevs) };
}

/** Which elements stand in `via`'s relation to one in `from` (the combinator's left side). */
function related(via: Combinator, from: Uint8Array, parent: Int32Array, prev: Int32Array): Uint8Array {
  const n = from.length;
  const out = new Uint8Array(n);
  // Document order: a parent and every previous sibling come before the element.
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    const s = prev[i] as number;
    if (via === SelectorType.Child) out[i] = p >= 0 && from[p] ? 1 : 0;
    else if (via === SelectorType.Descendant) out[i] = p >= 0 && (from[p] || out[p]) ? 1 : 0;
    else if (via === SelectorType.Adjacent) out[i] = s >= 0 && from[s] ? 1 : 0;
    else out[i] = s >= 0 && (from[s] || out[s]) ? 1 : 0;
  }
  return out;
}

/**
 * The elements of `document` matching `selector` (a selector list), in document order; an empty
 * list where css-select cannot evaluate the selector. Throws SelectorTooCostly when `budget` runs
 * out (see the top of this file).
 */
export function selectAll(document: Document, selector: string, budget = selectorBudget()): Element[] {
  if (budget.left < 0) throw new SelectorTooCostly(selector);
  const options = { adapter: adapterFor(budget), xmlMode: false, cacheResults: true } as const;
  try {
    const list = parse(selector);
    const chains = list.map(chainOf);
    const page = elementsOf(document);
    const hit = new Uint8Array(page.els.length);
    for (const [i, chain] of chains.entries()) {
      if (!chain) {
        // Not a chain of the four combinators: css-select matches it whole, element by element.
        const test = compile<Node, Element>([list[i] as Selector[]], options);
        page.els.forEach((el, j) => {
          if (!hit[j] && test(el)) hit[j] = 1;
        });
        continue;
      }
      let set = new Uint8Array(page.els.length).fill(1);
      for (const { via, compound } of chain) {
        const candidates = via === null ? set : related(via, set, page.parent, page.prev);
        const test = compile<Node, Element>([compound], options);
        set = new Uint8Array(page.els.length);
        page.els.forEach((el, j) => {
          if (candidates[j] && test(el)) set[j] = 1;
        });
      }
      set.forEach((v, j) => {
        if (v) hit[j] = 1;
      });
    }
    return page.els.filter((_, j) => hit[j]);
  } catch (err) {
    if (err instanceof StepsSpent) throw new SelectorTooCostly(selector);
    // What css-select cannot evaluate (pseudo-elements, namespaces): matches nothing, as such an
    // entry always did.
    return [];
  }
}
