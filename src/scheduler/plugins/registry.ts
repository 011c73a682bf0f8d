/**
 * The in-tree plugin registry and upstream v1's default profile (pkg/scheduler/framework/plugins/registry.go and
 * apis/config/v1/default_plugins.go).
 *
 * Contract with the scheduler core (src/scheduler/), which builds profiles from this file:
 * - `IN_TREE_PLUGINS[name](args, handle)` builds a plugin; `args` is the plugin's `pluginConfig[].args` object as
 *   read from the KubeSchedulerConfiguration (upstream's v1 field names; unset fields get upstream's defaults in
 *   the factory); a factory throws an Error whose message says what is wrong with bad args.
 * - `DEFAULT_MULTI_POINT` is upstream v1's default `plugins.multiPoint.enabled`, in upstream's order, with the score
 *   weights. A plugin of a multiPoint list is enabled at every extension point it implements —
 *   `extensionPointsOf(plugin)` tells which, by the methods the instance has. A score plugin without a weight gets 1.
 * - `DEFAULT_PLUGINS` is the same profile expanded per extension point (what upstream prints as the effective
 *   configuration), for documentation, `wheelhouse explain` and tests.
 * - `NOT_EVALUATED_PLUGINS` are upstream default plugins that have nothing to evaluate until volumes exist; they
 *   are accepted in configuration (enabling/disabling them is not an error) but not run.
 * - Each plugin that can reject a pod implements EnqueueExtensions (`eventsToRegister()`), so the queue knows which
 *   cluster events may make a pod it rejected schedulable.
 */

import type { Plugin, PluginFactory } from '../framework/types.js';
import * as defaultBinder from './defaultbinder/index.js';
import * as defaultPreemption from './defaultpreemption/index.js';
import * as imageLocality from './imagelocality/index.js';
import * as interPodAffinity from './interpodaffinity/index.js';
import * as nodeAffinity from './nodeaffinity/index.js';
import * as nodeName from './nodename/index.js';
import * as nodePorts from './nodeports/index.js';
import { balancedAllocationFactory, balancedAllocationName, fitFactory, fitName } from './noderesources/index.js';
import * as nodeUnschedulable from './nodeunschedulable/index.js';
import * as podTopologySpread from './podtopologyspread/index.js';
import * as prioritySort from './prioritysort/index.js';
import * as schedulingGates from './schedulinggates/index.js';
import * as taintToleration from './tainttoleration/index.js';
import * as volumeBinding from './volumebinding/index.js';

export const IN_TREE_PLUGINS: Record<string, PluginFactory> = {
  [prioritySort.name]: prioritySort.factory,
  [schedulingGates.name]: schedulingGates.factory,
  [nodeUnschedulable.name]: nodeUnschedulable.factory,
  [nodeName.name]: nodeName.factory,
  [taintToleration.name]: taintToleration.factory,
  [nodeAffinity.name]: nodeAffinity.factory,
  [nodePorts.name]: nodePorts.factory,
  [fitName]: fitFactory,
  [volumeBinding.name]: volumeBinding.factory,
  [balancedAllocationName]: balancedAllocationFactory,
  [podTopologySpread.name]: podTopologySpread.factory,
  [interPodAffinity.name]: interPodAffinity.factory,
  [defaultPreemption.name]: defaultPreemption.factory,
  [imageLocality.name]: imageLocality.factory,
  [defaultBinder.name]: defaultBinder.factory,
};

/** Upstream default plugins not built yet (volume limits, restrictions and zones of CSI and cloud volumes). */
export const NOT_EVALUATED_PLUGINS: readonly string[] = ['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeZone'];

export interface PluginRef {
  name: string;
  weight?: number;
}

/** Upstream v1's default multiPoint plugins, in order, with their score weights. */
export const DEFAULT_MULTI_POINT: readonly PluginRef[] = [
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' },
  { name: 'NodeVolumeLimits' },
  { name: 'VolumeBinding' },
  { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

/** The default score weights by plugin name. */
export const DEFAULT_SCORE_WEIGHTS: Readonly<Record<string, number>> = Object.fromEntries(
  DEFAULT_MULTI_POINT.filter((p) => p.weight !== undefined).map((p) => [p.name, p.weight as number]),
);

export type ExtensionPoint =
  | 'preEnqueue'
  | 'queueSort'
  | 'preFilter'
  | 'filter'
  | 'postFilter'
  | 'preScore'
  | 'score'
  | 'reserve'
  | 'permit'
  | 'preBind'
  | 'bind'
  | 'postBind';

/** The method that marks each extension point (the interfaces of framework/types.ts). */
const MARKER: Record<ExtensionPoint, string> = {
  preEnqueue: 'preEnqueue',
  queueSort: 'less',
  preFilter: 'preFilter',
  filter: 'filter',
  postFilter: 'postFilter',
  preScore: 'preScore',
  score: 'score',
  reserve: 'reserve',
  permit: 'permit',
  preBind: 'preBind',
  bind: 'bind',
  postBind: 'postBind',
};

export const EXTENSION_POINTS = Object.keys(MARKER) as ExtensionPoint[];

/** The extension points a plugin instance implements, in the framework's order. */
export function extensionPointsOf(plugin: Plugin): ExtensionPoint[] {
  const p = plugin as unknown as Record<string, unknown>;
  return EXTENSION_POINTS.filter((ep) => typeof p[MARKER[ep]] === 'function');
}

/**
 * Upstream v1's default profile expanded per extension point (the volume plugins included, as upstream lists
 * them; the scheduler skips NOT_EVALUATED_PLUGINS).
 */
export const DEFAULT_PLUGINS: Readonly<Record<ExtensionPoint, readonly PluginRef[]>> = {
  preEnqueue: [{ name: 'SchedulingGates' }, { name: 'DefaultPreemption' }],
  queueSort: [{ name: 'PrioritySort' }],
  preFilter: [
    { name: 'NodeAffinity' },
    { name: 'NodePorts' },
    { name: 'NodeResourcesFit' },
    { name: 'VolumeRestrictions' },
    { name: 'NodeVolumeLimits' },
    { name: 'VolumeBinding' },
    { name: 'VolumeZone' },
    { name: 'PodTopologySpread' },
    { name: 'InterPodAffinity' },
  ],
  filter: [
    { name: 'NodeUnschedulable' },
    { name: 'NodeName' },
    { name: 'TaintToleration' },
    { name: 'NodeAffinity' },
    { name: 'NodePorts' },
    { name: 'NodeResourcesFit' },
    { name: 'VolumeRestrictions' },
    { name: 'NodeVolumeLimits' },
    { name: 'VolumeBinding' },
    { name: 'VolumeZone' },
    { name: 'PodTopologySpread' },
    { name: 'InterPodAffinity' },
  ],
  postFilter: [{ name: 'DefaultPreemption' }],
  preScore: [
    { name: 'TaintToleration' },
    { name: 'NodeAffinity' },
    { name: 'NodeResourcesFit' },
    { name: 'VolumeBinding' },
    { name: 'PodTopologySpread' },
    { name: 'InterPodAffinity' },
    { name: 'NodeResourcesBalancedAllocation' },
  ],
  score: [
    { name: 'TaintToleration', weight: 3 },
    { name: 'NodeAffinity', weight: 2 },
    { name: 'NodeResourcesFit', weight: 1 },
    { name: 'VolumeBinding', weight: 1 },
    { name: 'PodTopologySpread', weight: 2 },
    { name: 'InterPodAffinity', weight: 2 },
    { name: 'NodeResourcesBalancedAllocation', weight: 1 },
    { name: 'ImageLocality', weight: 1 },
  ],
  reserve: [{ name: 'VolumeBinding' }],
  permit: [],
  preBind: [{ name: 'VolumeBinding' }],
  bind: [{ name: 'DefaultBinder' }],
  postBind: [],
};
