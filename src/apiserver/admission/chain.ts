/**
 * The admission chain: the enabled plugins in upstream's order. Every write runs `admit` (the mutating phase: each
 * plugin that has one, in order) after decoding and defaulting, then the registry's own validation, then `validate`
 * (the validating phase, same order), and only then reaches storage. The first plugin to throw ends the request
 * with its error.
 */
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';

export class AdmissionChain {
  private readonly mutating: AdmissionPlugin[];
  private readonly validating: AdmissionPlugin[];

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.mutating = plugins.filter((p) => p.admit !== undefined);
    this.validating = plugins.filter((p) => p.validate !== undefined);
  }

  /** The names of the plugins with a mutating step, in the order they run. */
  get mutatingNames(): string[] {
    return this.mutating.map((p) => p.name);
  }

  /** The names of the plugins with a validating step, in the order they run. */
  get validatingNames(): string[] {
    return this.validating.map((p) => p.name);
  }

  /**
   * The mutating phase: plugins may change attrs.object in place. When a plugin asks for it (a mutating webhook
   * changed the object), every mutating plugin runs once more, as upstream's reinvoker does; built-in plugins are
   * idempotent, and webhooks decide for themselves whether to be called again (reinvocationPolicy).
   */
  admit(attrs: AdmissionAttributes): void | Promise<void> {
    attrs.reinvocation ??= { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    const first = this.admitFrom(attrs, resourceKey(attrs), 0);
    return first ? first.then(() => this.reinvoke(attrs)) : this.reinvoke(attrs);
  }

  private reinvoke(attrs: AdmissionAttributes): void | Promise<void> {
    const r = attrs.reinvocation;
    if (!r?.shouldReinvoke || r.isReinvoke) return;
    r.isReinvoke = true;
    return this.admitFrom(attrs, resourceKey(attrs), 0);
  }

  /**
   * The mutating plugins from the i-th on. Plugins answer at once nearly always (their lookups hit the watch
   * caches), so the phase makes no promise until one of them returns one.
   */
  private admitFrom(attrs: AdmissionAttributes, resource: string, from: number): void | Promise<void> {
    const plugins = this.mutating;
    for (let i = from; i < plugins.length; i++) {
      const plugin = plugins[i] as AdmissionPlugin;
      if (!wants(plugin, attrs, resource)) continue;
      const done = plugin.admit?.(attrs);
      if (done) return done.then(() => this.admitFrom(attrs, resource, i + 1));
    }
  }

  /** The validating phase: plugins accept or refuse the object as it will be stored. */
  validate(attrs: AdmissionAttributes): void | Promise<void> {
    return this.validateFrom(attrs, resourceKey(attrs), 0);
  }

  private validateFrom(attrs: AdmissionAttributes, resource: string, from: number): void | Promise<void> {
    const plugins = this.validating;
    for (let i = from; i < plugins.length; i++) {
      const plugin = plugins[i] as AdmissionPlugin;
      if (!wants(plugin, attrs, resource)) continue;
      const done = plugin.validate?.(attrs);
      if (done) return done.then(() => this.validateFrom(attrs, resource, i + 1));
    }
  }
}

function resourceKey(attrs: AdmissionAttributes): string {
  return `${attrs.resource.group}/${attrs.resource.resource}`;
}

/** Whether a plugin takes part in a request: its operations and resources, when it names them, include it. */
function wants(plugin: AdmissionPlugin, attrs: AdmissionAttributes, resource: string): boolean {
  if (plugin.handles && !plugin.handles(attrs.operation)) return false;
  return plugin.resources === undefined || plugin.resources.includes(resource);
}

/** A chain that admits everything (no plugins). */
export const EMPTY_ADMISSION_CHAIN = new AdmissionChain([]);
