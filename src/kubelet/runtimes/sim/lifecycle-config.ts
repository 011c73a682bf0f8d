/**
 * Which lifecycle a simulated pod follows, as data: built-in defaults, then the cluster's config file (defaults and
 * rules matched by namespace and label selector, first match wins), then the pod's own annotations.
 *
 *   # --lifecycle-config file
 *   defaults:
 *     startSeconds: 1          # bound → containers running
 *   rules:
 *     - selector: app=flaky    # a label selector (string, or { matchLabels, matchExpressions })
 *       namespace: default     # optional
 *       lifecycle: crashloop   # run | complete | fail | crashloop | never-ready
 *       exitCode: 2
 *       runSeconds: 5
 *       logs: ["starting", "connecting to db"]
 *       imagePull: fail        # succeed | fail: the registry has none of the images the pod pulls
 *
 * Annotations on the pod: sim.wheelhouse.dev/lifecycle, /exit-code, /run-seconds, /start-seconds, /stop-seconds,
 * /logs (lines separated by newlines), /image-pull.
 */
import { parse as parseYaml } from 'yaml';
import { LabelSelector, type LabelSelectorObject } from '../../../api/labels.js';
import type { KubeObject } from '../../../client/types.js';

export const LIFECYCLES = ['run', 'complete', 'fail', 'crashloop', 'never-ready'] as const;
export type LifecycleKind = (typeof LIFECYCLES)[number];

export const ANNOTATION_PREFIX = 'sim.wheelhouse.dev/';
export const LIFECYCLE_ANNOTATION = `${ANNOTATION_PREFIX}lifecycle`;
export const EXIT_CODE_ANNOTATION = `${ANNOTATION_PREFIX}exit-code`;
export const RUN_SECONDS_ANNOTATION = `${ANNOTATION_PREFIX}run-seconds`;
export const START_SECONDS_ANNOTATION = `${ANNOTATION_PREFIX}start-seconds`;
export const STOP_SECONDS_ANNOTATION = `${ANNOTATION_PREFIX}stop-seconds`;
export const LOGS_ANNOTATION = `${ANNOTATION_PREFIX}logs`;
export const IMAGE_PULL_ANNOTATION = `${ANNOTATION_PREFIX}image-pull`;
export const IMAGE_PULLS = ['succeed', 'fail'] as const;
export type ImagePull = (typeof IMAGE_PULLS)[number];

/** What defaults, rules and annotations may set. */
export interface LifecycleSpec {
  lifecycle?: LifecycleKind;
  /** Exit code of containers that exit (complete: 0, fail and crashloop: 1 by default). */
  exitCode?: number;
  /** How long containers run before they exit, for complete, fail and crashloop (default 1). */
  runSeconds?: number;
  /** From the pod being seen on its node to its containers running (default 1; 0 skips the Pending report). */
  startSeconds?: number;
  /** How long each init container runs before it completes (default 1). */
  initSeconds?: number;
  /** How long containers take to stop once the pod is deleted (default: its whole grace period). */
  stopSeconds?: number;
  /** Lines every container writes when it starts. */
  logs?: string[];
  /**
   * Whether pulling the pod's images works (default succeed). With fail, the registry has none of them: a container
   * whose image must be pulled waits in ErrImagePull and ImagePullBackOff, as for an image that does not exist.
   */
  imagePull?: ImagePull;
}

export interface LifecycleRule extends LifecycleSpec {
  /** Label selector over the pod's labels; none matches every pod. */
  selector?: string | LabelSelectorObject;
  namespace?: string;
}

export interface LifecycleConfig {
  defaults?: LifecycleSpec;
  rules?: LifecycleRule[];
}

export interface ResolvedLifecycle {
  lifecycle: LifecycleKind;
  exitCode: number;
  runSeconds: number;
  startSeconds: number;
  initSeconds: number;
  /** undefined: stop at the end of the grace period. */
  stopSeconds: number | undefined;
  logs: string[];
  imagePull: ImagePull;
}

const BUILT_IN = { startSeconds: 1, runSeconds: 1, initSeconds: 1 } as const;

interface CompiledRule {
  spec: LifecycleSpec;
  namespace: string | undefined;
  selector: LabelSelector;
}

/** A lifecycle config checked and with its selectors parsed, ready to match pods. */
export class Lifecycles {
  private readonly defaults: LifecycleSpec;
  private readonly rules: CompiledRule[];

  constructor(config: LifecycleConfig = {}) {
    this.defaults = checkSpec(config.defaults ?? {}, 'defaults');
    this.rules = (config.rules ?? []).map((rule, i) => {
      const at = `rules[${i}]`;
      const { selector, namespace, ...spec } = rule;
      let compiled: LabelSelector;
      try {
        compiled =
          selector === undefined
            ? LabelSelector.everything()
            : typeof selector === 'string'
              ? LabelSelector.parse(selector)
              : LabelSelector.fromObject(selector);
      } catch (err) {
        throw new Error(`${at}.selector: ${(err as Error).message}`);
      }
      if (namespace !== undefined && typeof namespace !== 'string')
        throw new Error(`${at}.namespace: must be a string`);
      return { spec: checkSpec(spec, at), namespace, selector: compiled };
    });
  }

  /** Parses a config file's text (YAML or JSON). */
  static parse(text: string): Lifecycles {
    const doc = parseYaml(text) as unknown;
    if (doc === null || doc === undefined) return new Lifecycles();
    if (typeof doc !== 'object' || Array.isArray(doc))
      throw new Error('a lifecycle config is a map with defaults and rules');
    const { defaults, rules, ...rest } = doc as Record<string, unknown>;
    const unknownKeys = Object.keys(rest).filter((k) => k !== 'apiVersion' && k !== 'kind');
    if (unknownKeys.length > 0) throw new Error(`unknown field(s) in lifecycle config: ${unknownKeys.join(', ')}`);
    if (rules !== undefined && !Array.isArray(rules)) throw new Error('rules: must be a list');
    return new Lifecycles({ defaults: defaults as LifecycleSpec, rules: rules as LifecycleRule[] });
  }

  /** The lifecycle `pod` follows. */
  resolve(pod: KubeObject): ResolvedLifecycle {
    const labels = pod.metadata.labels ?? {};
    const rule = this.rules.find(
      (r) => (r.namespace === undefined || r.namespace === pod.metadata.namespace) && r.selector.matches(labels),
    );
    const merged: LifecycleSpec = { ...this.defaults, ...rule?.spec, ...fromAnnotations(pod.metadata.annotations) };
    const restartPolicy = pod.spec?.restartPolicy ?? 'Always';
    const lifecycle = merged.lifecycle ?? (restartPolicy === 'Always' ? 'run' : 'complete');
    const exitCode = merged.exitCode ?? (lifecycle === 'fail' || lifecycle === 'crashloop' ? 1 : 0);
    return {
      lifecycle,
      exitCode,
      runSeconds: merged.runSeconds ?? BUILT_IN.runSeconds,
      startSeconds: merged.startSeconds ?? BUILT_IN.startSeconds,
      initSeconds: merged.initSeconds ?? BUILT_IN.initSeconds,
      stopSeconds: merged.stopSeconds,
      logs: merged.logs ?? [],
      imagePull: merged.imagePull ?? 'succeed',
    };
  }
}

const NUMBER_FIELDS = ['exitCode', 'runSeconds', 'startSeconds', 'initSeconds', 'stopSeconds'] as const;

function checkSpec(spec: unknown, at: string): LifecycleSpec {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new Error(`${at}: must be a map`);
  const s = spec as Record<string, unknown>;
  const out: LifecycleSpec = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === 'lifecycle') {
      if (!LIFECYCLES.includes(value as LifecycleKind)) {
        throw new Error(`${at}.lifecycle: must be one of ${LIFECYCLES.join(', ')}, not ${JSON.stringify(value)}`);
      }
      out.lifecycle = value as LifecycleKind;
    } else if (key === 'imagePull') {
      if (!IMAGE_PULLS.includes(value as ImagePull)) {
        throw new Error(`${at}.imagePull: must be one of ${IMAGE_PULLS.join(', ')}, not ${JSON.stringify(value)}`);
      }
      out.imagePull = value as ImagePull;
    } else if ((NUMBER_FIELDS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (key === 'exitCode' && value > 255)) {
        throw new Error(`${at}.${key}: must be a number${key === 'exitCode' ? ' from 0 to 255' : ' of seconds ≥ 0'}`);
      }
      out[key as (typeof NUMBER_FIELDS)[number]] = key === 'exitCode' ? Math.trunc(value) : value;
    } else if (key === 'logs') {
      if (!Array.isArray(value) || value.some((l) => typeof l !== 'string')) {
        throw new Error(`${at}.logs: must be a list of strings`);
      }
      out.logs = value as string[];
    } else {
      throw new Error(`${at}: unknown field ${JSON.stringify(key)}`);
    }
  }
  return out;
}

function seconds(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The part of a lifecycle the pod's annotations set; values that do not parse are ignored. */
export function fromAnnotations(annotations: Record<string, string> | undefined): LifecycleSpec {
  const out: LifecycleSpec = {};
  if (!annotations) return out;
  const kind = annotations[LIFECYCLE_ANNOTATION]?.trim();
  if (kind && LIFECYCLES.includes(kind as LifecycleKind)) out.lifecycle = kind as LifecycleKind;
  const exit = annotations[EXIT_CODE_ANNOTATION];
  if (exit !== undefined && /^\s*\d+\s*$/.test(exit) && Number(exit) <= 255) out.exitCode = Number(exit);
  const run = seconds(annotations[RUN_SECONDS_ANNOTATION]);
  if (run !== undefined) out.runSeconds = run;
  const start = seconds(annotations[START_SECONDS_ANNOTATION]);
  if (start !== undefined) out.startSeconds = start;
  const stop = seconds(annotations[STOP_SECONDS_ANNOTATION]);
  if (stop !== undefined) out.stopSeconds = stop;
  const logs = annotations[LOGS_ANNOTATION];
  if (logs !== undefined) out.logs = logs.split('\n');
  const pull = annotations[IMAGE_PULL_ANNOTATION]?.trim();
  if (pull && IMAGE_PULLS.includes(pull as ImagePull)) out.imagePull = pull as ImagePull;
  return out;
}
