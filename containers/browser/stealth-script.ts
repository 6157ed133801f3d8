/**
 * The part of stealth that only page JavaScript can do: installed in every document (and worker)
 * before the page's own scripts run (Page.addScriptToEvaluateOnNewDocument; Runtime.evaluate on a
 * worker paused at start). `installStealth` is sent as source text, so it must not use anything
 * from this module's scope.
 *
 * Each patch replaces a getter or method on the prototype where Chrome defines it (never an own
 * property of `navigator`, which `Object.getOwnPropertyNames(navigator)` would list), keeps the
 * native property's name, length and attributes, and answers `Function.prototype.toString` like a
 * native function. A value Chromium already reports correctly (navigator.languages after the
 * Accept-Language override, the PDF plugins, window.chrome and the notification permission of the
 * new headless mode) is left native.
 */
export interface StealthScriptConfig {
  languages: string[];
  platform: string;
  hardwareConcurrency: number;
  deviceMemory: number;
  screen: { width: number; height: number; availWidth: number; availHeight: number; colorDepth: number };
  window: { outerWidth: number; outerHeight: number };
  webgl: { vendor: string; renderer: string };
  noiseSeed: number;
}

export function stealthScriptSource(config: StealthScriptConfig): string {
  return `(${installStealth.toString()})(${JSON.stringify(config)});`;
}

type Fn = (...args: unknown[]) => unknown;

function installStealth(c: StealthScriptConfig): void {
  const g = globalThis as unknown as Record<string, { prototype: object } | undefined>;
  const natives = new WeakMap<object, string>();
  const nativeToString = Function.prototype.toString;
  // Patched functions print as native ones; everything else goes to the real toString.
  const patchedToString = {
    toString(this: unknown): string {
      const name = typeof this === "function" ? natives.get(this) : undefined;
      return name === undefined ? nativeToString.call(this as Fn) : `function ${name}() { [native code] }`;
    },
  }.toString;
  natives.set(patchedToString, "toString");
  Object.defineProperty(Function.prototype, "toString", { value: patchedToString, writable: true, configurable: true });

  /** Replaces the getter of `prop` on `target`; `value` gets the receiver and the native value. */
  const getter = (target: object | undefined, prop: string, value: (self: unknown, native: unknown) => unknown) => {
    const desc = target && Object.getOwnPropertyDescriptor(target, prop);
    if (!target || !desc?.get) return;
    const nativeGet = desc.get;
    // A computed getter in an object literal is named "get <prop>", like a native accessor.
    const get = Object.getOwnPropertyDescriptor(
      {
        get [prop]() {
          return value(this, nativeGet.call(this));
        },
      },
      prop,
    )?.get as Fn;
    natives.set(get, `get ${prop}`);
    Object.defineProperty(target, prop, { ...desc, get });
  };
  /** Replaces method `prop` on `target`; `impl` gets the receiver, the arguments and the native method. */
  const method = (target: object | undefined, prop: string, impl: (self: unknown, args: unknown[], native: Fn) => unknown) => {
    const desc = target && Object.getOwnPropertyDescriptor(target, prop);
    if (!target || typeof desc?.value !== "function") return;
    const native = desc.value as Fn;
    // Method shorthand: no prototype and not constructible, like a native method.
    const fn = {
      [prop](this: unknown, ...args: unknown[]) {
        return impl(this, args, native);
      },
    }[prop] as Fn;
    Object.defineProperty(fn, "length", { value: native.length, configurable: true });
    natives.set(fn, prop);
    Object.defineProperty(target, prop, { ...desc, value: fn });
  };
  const proto = (name: string): object | undefined => g[name]?.prototype;

  // navigator (Navigator in a page, WorkerNavigator in a worker).
  const nav = proto("Navigator") ?? proto("WorkerNavigator");
  const languages = Object.freeze([...c.languages]);
  getter(nav, "webdriver", () => false);
  if (navigator.languages.join() !== languages.join()) {
    getter(nav, "languages", () => languages);
    getter(nav, "language", () => languages[0]);
  }
  if (navigator.platform !== c.platform) getter(nav, "platform", () => c.platform);
  getter(nav, "hardwareConcurrency", () => c.hardwareConcurrency);
  getter(nav, "deviceMemory", () => c.deviceMemory);

  // The GPU: SwiftShader and llvmpipe name themselves in WEBGL_debug_renderer_info.
  const UNMASKED_VENDOR = 0x9245;
  const UNMASKED_RENDERER = 0x9246;
  for (const name of ["WebGLRenderingContext", "WebGL2RenderingContext"]) {
    method(proto(name), "getParameter", (self, args, native) =>
      args[0] === UNMASKED_VENDOR ? c.webgl.vendor : args[0] === UNMASKED_RENDERER ? c.webgl.renderer : native.apply(self, args),
    );
  }

  if (typeof window === "undefined") return; // a worker: no screen, window or DOM canvas

  const s = c.screen;
  const screenValues: Record<string, number> = {
    width: s.width,
    height: s.height,
    availWidth: s.availWidth,
    availHeight: s.availHeight,
    colorDepth: s.colorDepth,
    pixelDepth: s.colorDepth,
  };
  for (const [prop, v] of Object.entries(screenValues)) getter(proto("Screen"), prop, () => v);
  // Headless reports a window smaller than its own viewport; outerWidth/Height live on window itself.
  getter(window, "outerWidth", () => c.window.outerWidth);
  getter(window, "outerHeight", () => c.window.outerHeight);

  // Canvas read-back noise: the low bit of one channel in about one opaque pixel in 64, chosen by
  // (seed, x, y) and set (not flipped), so reading twice, or reading a region, gives the same bytes.
  const noise = (data: Uint8ClampedArray, x0: number, y0: number, width: number) => {
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] !== 255) continue;
      const p = i >> 2;
      let h = Math.imul(x0 + (p % width), 0x27d4eb2d) ^ Math.imul(y0 + Math.floor(p / width), 0x165667b1) ^ c.noiseSeed;
      h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
      h ^= h >>> 13;
      if ((h & 63) !== 0) continue;
      const at = i + ((h >>> 6) % 3);
      data[at] = ((data[at] as number) & ~1) | ((h >>> 9) & 1);
    }
  };
  const ctx2d = proto("CanvasRenderingContext2D") as CanvasRenderingContext2D | undefined;
  const nativeGetImageData = ctx2d?.getImageData;
  /** A noised copy of a canvas, or null when it cannot be read (empty, tainted: the native call then answers). */
  const noisedCopy = (canvas: HTMLCanvasElement): HTMLCanvasElement | null => {
    if (!nativeGetImageData || canvas.width === 0 || canvas.height === 0) return null;
    try {
      const copy = document.createElement("canvas");
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext("2d");
      if (!ctx) return null;
      ctx.drawImage(canvas, 0, 0);
      const img = nativeGetImageData.call(ctx, 0, 0, copy.width, copy.height);
      noise(img.data, 0, 0, img.width);
      ctx.putImageData(img, 0, 0);
      return copy;
    } catch {
      return null;
    }
  };
  for (const name of ["toDataURL", "toBlob"]) {
    method(proto("HTMLCanvasElement"), name, (self, args, native) =>
      native.apply(noisedCopy(self as HTMLCanvasElement) ?? self, args),
    );
  }
  method(ctx2d, "getImageData", (self, args, native) => {
    const img = native.apply(self, args) as ImageData;
    const [sx, sy, sw, sh] = args.map(Number) as [number, number, number, number];
    noise(img.data, sw < 0 ? sx + sw : sx, sh < 0 ? sy + sh : sy, img.width);
    return img;
  });
}
