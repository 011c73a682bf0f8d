/**
 * The admission chain: the enabled plugins in upstream's order. Every write runs `admit` (the mutating phase: each
 * plugin that has one, in order) after decoding and defaulting, then the registry's own validation, then `validate`
 * (the validating phase, same order), and only then reaches storage. The first plugin to throw ends the request
 * with its error.
 */
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';

type Phase = 'admit' | 'validate';

export class AdmissionChain {
  private readonly mutating: AdmissionPlugin[];
  private readonly validating: AdmissionPlugin[];
  /**
   * Each phase's plugins that take part in a request, by operation, then group, then resource: worked out once per
   * kind of request rather than asking every plugin on every write. A plugin's operations and resources do not change.
   */
  private readonly picked: Record<Phase, Map<string, Map<string, Map<string, readonly AdmissionPlugin[]>>>> = {
    admit: new Map(),
    validate: new Map(),
  };

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
    const plugins = this.pick('admit', attrs);
    const first = runFrom('admit', plugins, attrs, 0);
    return first ? first.then(() => this.reinvoke(plugins, attrs)) : this.reinvoke(plugins, attrs);
  }

  private reinvoke(plugins: readonly AdmissionPlugin[], attrs: AdmissionAttributes): void | Promise<void> {
    const r = attrs.reinvocation;
    if (!r?.shouldReinvoke || r.isReinvoke) return;
    r.isReinvoke = true;
    return runFrom('admit', plugins, attrs, 0);
  }

  /** The validating phase: plugins accept or refuse the object as it will be stored. */
  validate(attrs: AdmissionAttributes): void | Promise<void> {
    return runFrom('validate', this.pick('validate', attrs), attrs, 0);
  }

  /** The phase's plugins, in order, whose operations and resources (when they name them) include the request's. */
  private pick(phase: Phase, attrs: AdmissionAttributes): readonly AdmissionPlugin[] {
    const { group, resource } = attrs.resource;
    const byGroup = mapIn(this.picked[phase], attrs.operation);
    const byResource = mapIn(byGroup, group);
    let plugins = byResource.get(resource);
    if (!plugins) {
      const key = `${group}/${resource}`;
      plugins = (phase === 'admit' ? this.mutating : this.validating).filter(
        (p) => (!p.handles || p.handles(attrs.operation)) && (p.resources === undefined || p.resources.includes(key)),
      );
      byResource.set(resource, plugins);
    }
    return plugins;
  }
}

function mapIn<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

/**
 * The phase's plugins from the i-th on. Plugins answer at once nearly always (their lookups hit the watch caches),
 * so the phase makes no promise until one of them returns one.
 */
function runFrom(
  phase: Phase,
  plugins: readonly AdmissionPlugin[],
  attrs: AdmissionAttributes,
  from: number,
): void | Promise<void> {
  for (let i = from; i < plugins.length; i++) {
    const done = (plugins[i] as AdmissionPlugin)[phase]?.(attrs);
    if (done) return done.then(() => runFrom(phase, plugins, attrs, i + 1));
  }
}

/** A chain that admits everything (no plugins). */
export const EMPTY_ADMISSION_CHAIN = new AdmissionChain([]);
