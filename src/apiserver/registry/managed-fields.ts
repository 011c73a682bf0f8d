import type { SchemaNode } from '../../api/schema-node.js';
import { BoundedMemo } from '../../util/bounded-memo.js';
import { sortByFirst, sortStrings } from '../../util/sort.js';
import { isObject, jsonEqual, type KubeObject } from './object.js';

/**
 * metadata.managedFields for writes that are not server-side apply (operation "Update"): which manager set which
 * fields, in upstream's FieldsV1 notation ("f:<field>", "k:{…}" for list elements with keys, "v:<value>" for set
 * elements, "." for a map or list element itself). The writer of a change owns what it changed; fields it removed
 * are owned by nobody any more.
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** Fields of the object itself that nobody manages (system fields and the managed fields themselves). */
const UNMANAGED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/**
 * Paths are kept as their FieldsV1 segments joined by this character: no field name, key or value can hold it,
 * whereas "/" is common in them (label and annotation keys, a mount path as a list key). Being the lowest code
 * point, it also makes a sort of whole paths a sort segment by segment, "." first.
 */
const SEP = '\u0000';

/** Where the walk of an object puts the fields it finds: as leaf paths, or straight into a FieldsV1 tree. */
interface Collector {
  /** Whether the walk must record each node's children in FieldsV1 order (a tree built as it goes). */
  readonly ordered: boolean;
  /** The collector for what lies under segment seg (a field, a list element). */
  under(seg: string): Collector;
  /** Records seg as a leaf; value is what is there (undefined for the "." of a map or list element). */
  leaf(seg: string, value: unknown): void;
}

/** Leaf paths, each with the JSON of its value ("" for "." markers, and throughout when values is false). */
class PathCollector implements Collector {
  readonly ordered = false;

  constructor(
    private readonly prefix: string,
    readonly out: Map<string, string>,
    private readonly values: boolean,
  ) {}

  under(seg: string): Collector {
    return new PathCollector(`${this.prefix}${SEP}${seg}`, this.out, this.values);
  }

  leaf(seg: string, value: unknown): void {
    this.out.set(`${this.prefix}${SEP}${seg}`, this.values && value !== undefined ? JSON.stringify(value) : '');
  }
}

type FieldsTree = Record<string, unknown>;

/**
 * A FieldsV1 tree built as the walk goes; a node is made when something is recorded in it. The walk goes through
 * fields and list elements in FieldsV1 order, so each node's children come in that order as they are added.
 */
class TreeCollector implements Collector {
  constructor(
    private readonly parent: TreeCollector | undefined,
    private readonly seg: string,
    private made?: FieldsTree,
    /** False for a tree whose order does not matter (one that is only looked things up in). */
    readonly ordered = true,
  ) {}

  /** This collector's node, made now if nothing was recorded in it yet. */
  node(): FieldsTree {
    if (this.made === undefined) {
      const up = (this.parent as TreeCollector).node();
      this.made = (up[this.seg] as FieldsTree | undefined) ?? {};
      up[this.seg] = this.made;
    }
    return this.made;
  }

  under(seg: string): TreeCollector {
    return new TreeCollector(this, seg, undefined, this.ordered);
  }

  leaf(seg: string): void {
    const node = this.node();
    node[seg] ??= {};
  }
}

/**
 * One side of a paired walk (walkPair): the leaves where the two sides may differ, as paths with their values' JSON
 * (to be compared with the other side's), and the subtrees the other side does not have at all, as a FieldsV1 tree
 * (whose leaves are all changes, with nothing to compare: the kubelet's first status report adds most of its
 * fields so). A path is only made for a leaf recorded as a path.
 */
class DiffSide implements Collector {
  readonly ordered = false;
  private path: string | undefined;
  private tree: TreeCollector | undefined;

  constructor(
    private readonly parent: DiffSide | undefined,
    private readonly seg: string,
    readonly out: Map<string, string>,
    private readonly root: TreeCollector,
  ) {}

  private prefix(): string {
    if (this.path === undefined) this.path = this.parent ? `${this.parent.prefix()}${SEP}${this.seg}` : '';
    return this.path;
  }

  under(seg: string): DiffSide {
    return new DiffSide(this, seg, this.out, this.root);
  }

  leaf(seg: string, value: unknown): void {
    this.out.set(`${this.prefix()}${SEP}${seg}`, value !== undefined ? JSON.stringify(value) : '');
  }

  /** This place in the tree of the subtrees only this side has. */
  whole(): TreeCollector {
    if (this.tree === undefined) this.tree = this.parent ? this.parent.whole().under(this.seg) : this.root;
    return this.tree;
  }
}

/**
 * The segment `f:<name>` of each field name, made once: a tree's keys are looked up by these strings, and a string
 * made anew for every field would be hashed and interned anew on every lookup. Bounded, as field names can be many
 * (a map's keys: labels, annotations, data).
 */
const fieldSegs = new BoundedMemo<string, string>(8192);

function fieldSeg(name: string): string {
  return fieldSegs.get(name) ?? fieldSegs.remember(name, `f:${name}`);
}

/** The keys of obj, sorted when the collector wants FieldsV1 order ("f:" + key sorts as key does). */
function keysFor(obj: Record<string, unknown>, c: Collector): string[] {
  const keys = Object.keys(obj);
  return c.ordered && keys.length > 1 ? sortStrings(keys) : keys;
}

/** Walks the value at segment seg of its parent, recording its fields; returns whether anything was recorded. */
function walk(value: unknown, schema: SchemaNode | undefined, parent: Collector, seg: string): boolean {
  if (Array.isArray(value)) {
    const keys = listKeysOf(schema);
    if (keys && value.every(isObject)) {
      const list = parent.under(seg);
      const elements = (value as Record<string, unknown>[]).map((item) => [elementSeg(item, keys), item] as const);
      if (list.ordered && elements.length > 1) sortByFirst(elements);
      for (const [elementSegment, item] of elements) walkElement(item, elementSegment, schema, list);
      return value.length > 0;
    }
    if (schema?.listType === 'set') {
      const set = parent.under(seg);
      const members = value.map((item) => `v:${JSON.stringify(item)}`);
      if (set.ordered && members.length > 1) sortStrings(members);
      for (const member of members) set.leaf(member, undefined);
      return value.length > 0;
    }
    parent.leaf(seg, value);
    return true;
  }
  if (isObject(value) && !schema?.preserveUnknownFields && schema?.type !== 'string') {
    const isMap = !schema || schema.additionalProperties !== undefined || schema.propertyNames === undefined;
    const node = parent.under(seg);
    if (isMap) node.leaf('.', undefined);
    // A struct with nothing set in it is still a field the writer set (upstream's `f:securityContext: {}`).
    if (!walkFields(value, schema, node) && !isMap) parent.leaf(seg, value);
    return true;
  }
  parent.leaf(seg, value);
  return true;
}

/**
 * Element segments of lists with one key field, by that field (names come from schemas, so they are few) and its
 * value, made once (see fieldSeg).
 */
const elementSegs = new Map<string, BoundedMemo<string | number, string>>();

/** The segment of a keyed list's element: its key fields, as `k:{…}`. */
function elementSeg(item: Record<string, unknown>, keys: readonly string[]): string {
  if (keys.length === 1) {
    const key = keys[0] as string;
    const value = item[key];
    if (typeof value === 'string' || typeof value === 'number') {
      let byValue = elementSegs.get(key);
      if (byValue === undefined) {
        byValue = new BoundedMemo(8192);
        elementSegs.set(key, byValue);
      }
      return byValue.get(value) ?? byValue.remember(value, `k:${JSON.stringify({ [key]: value })}`);
    }
  }
  const id: Record<string, unknown> = {};
  for (const k of keys) if (item[k] !== undefined) id[k] = item[k];
  return `k:${JSON.stringify(id)}`;
}

/** Walks an element of a keyed list (schema is the list's) under its segment of list: itself, then its fields. */
function walkElement(
  item: Record<string, unknown>,
  seg: string,
  schema: SchemaNode | undefined,
  list: Collector,
): void {
  const element = list.under(seg);
  element.leaf('.', undefined);
  walkFields(item, schema?.items, element);
}

/** Walks the fields of an object into c; returns whether anything was recorded. */
function walkFields(obj: Record<string, unknown>, schema: SchemaNode | undefined, c: Collector): boolean {
  let any = false;
  for (const k of keysFor(obj, c)) {
    const v = obj[k];
    if (v === undefined) continue;
    if (walk(v, schema?.property(k) ?? schema?.additionalProperties, c, fieldSeg(k))) any = true;
  }
  return any;
}

/** Walks the fields a write of this resource can manage: no system fields; status only through /status. */
function walkManaged(obj: KubeObject, schema: SchemaNode | undefined, subresource: string | undefined, c: Collector) {
  if (subresource === 'status') {
    if (obj.status !== undefined) walk(obj.status, schema?.property('status'), c, 'f:status');
    return;
  }
  for (const k of keysFor(obj, c)) {
    const v = obj[k];
    if (v === undefined || k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata' && isObject(v)) {
      const metaSchema = schema?.property('metadata');
      const meta = c.under('f:metadata');
      for (const mk of keysFor(v, c)) {
        const mv = v[mk];
        if (mv === undefined || UNMANAGED_METADATA.has(mk)) continue;
        walk(mv, metaSchema?.property(mk), meta, fieldSeg(mk));
      }
      continue;
    }
    walk(v, schema?.property(k), c, fieldSeg(k));
  }
}

/** The managed fields of obj as leaf paths with their values' JSON. */
function managedLeaves(obj: KubeObject, schema: SchemaNode | undefined, subresource: string | undefined) {
  const c = new PathCollector('', new Map(), true);
  walkManaged(obj, schema, subresource, c);
  return c.out;
}

/** The keys of a keyed list (listMapKeys, else the patch merge key), as walk() reads them. */
function listKeysOf(schema: SchemaNode | undefined): readonly string[] | undefined {
  return schema?.listMapKeys ?? (schema?.patchMergeKey ? [schema.patchMergeKey] : undefined);
}

/** Whether walkFields would record anything for obj (else a struct is a leaf of its own). */
function recordsFields(obj: Record<string, unknown>, schema: SchemaNode | undefined): boolean {
  for (const k in obj) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.length > 0) return true;
    const s = schema?.property(k) ?? schema?.additionalProperties;
    if (!listKeysOf(s) && s?.listType !== 'set') return true;
  }
  return false;
}

/**
 * Walks the values at segment seg of old and next side by side, recording leaves into before and after only
 * where they may differ: a subtree the two share unchanged adds the same leaves to both, so it is skipped. Objects
 * are followed field by field; anything else that differs (lists, leaves, a change of shape) is walked whole on
 * both sides.
 */
function walkPair(
  o: unknown,
  n: unknown,
  schema: SchemaNode | undefined,
  before: DiffSide,
  after: DiffSide,
  seg: string,
): void {
  if (o === undefined || n === undefined) {
    if (o !== undefined) walk(o, schema, before.whole(), seg);
    if (n !== undefined) walk(n, schema, after.whole(), seg);
    return;
  }
  if (o === n) return;
  const objects = isObject(o) && isObject(n) && !schema?.preserveUnknownFields && schema?.type !== 'string';
  if (objects) {
    const isMap = !schema || schema.additionalProperties !== undefined || schema.propertyNames === undefined;
    // A map's "." is on both sides; a struct is followed when neither side is an empty struct (a leaf itself).
    if (isMap || (recordsFields(o, schema) && recordsFields(n, schema))) {
      walkPairFields(
        o,
        n,
        (k) => schema?.property(k) ?? schema?.additionalProperties,
        before.under(seg),
        after.under(seg),
      );
      return;
    }
  } else if (Array.isArray(o) && Array.isArray(n)) {
    const keys = listKeysOf(schema);
    if (jsonEqual(o, n)) return;
    if (keys && walkKeyedPair(o, n, keys, schema, before.under(seg), after.under(seg))) return;
  }
  walk(o, schema, before, seg);
  walk(n, schema, after, seg);
}

/**
 * walkPair over two keyed lists (a pod's conditions, its containers' statuses): elements are paired by key and only
 * the pairs that differ are followed, so a write that changes one condition does not walk every other one. Answers
 * false, having recorded nothing, when the lists are not plain keyed lists (an element that is not an object, a key
 * that appears twice); the caller then walks both whole.
 */
function walkKeyedPair(
  o: unknown[],
  n: unknown[],
  keys: readonly string[],
  schema: SchemaNode | undefined,
  before: DiffSide,
  after: DiffSide,
): boolean {
  const olds = byElementSeg(o, keys);
  const nexts = olds && byElementSeg(n, keys);
  if (!olds || !nexts) return false;
  const items = schema?.items;
  const schemaOf = (k: string) => items?.property(k) ?? items?.additionalProperties;
  for (const [seg, item] of olds) {
    const paired = nexts.get(seg);
    if (paired === undefined) walkElement(item, seg, schema, before.whole());
    else if (paired !== item) walkPairFields(item, paired, schemaOf, before.under(seg), after.under(seg));
  }
  for (const [seg, item] of nexts) if (!olds.has(seg)) walkElement(item, seg, schema, after.whole());
  return true;
}

/** A keyed list's elements by segment; undefined when one is not an object or two share a key. */
function byElementSeg(list: unknown[], keys: readonly string[]): Map<string, Record<string, unknown>> | undefined {
  const out = new Map<string, Record<string, unknown>>();
  for (const item of list) {
    if (!isObject(item)) return undefined;
    const seg = elementSeg(item, keys);
    if (out.has(seg)) return undefined;
    out.set(seg, item);
  }
  return out;
}

/** walkPair over the fields of two objects, each field once (those of either side); skip leaves some out. */
function walkPairFields(
  o: Record<string, unknown>,
  n: Record<string, unknown>,
  schemaOf: (field: string) => SchemaNode | undefined,
  before: DiffSide,
  after: DiffSide,
  skip: (field: string) => boolean = () => false,
): void {
  // A field with the same value on both sides (most leaves of most writes) adds nothing: it is passed over before
  // its schema is looked up.
  for (const k in o) {
    const ov = o[k];
    const nv = n[k];
    if (ov !== nv && !skip(k)) walkPair(ov, nv, schemaOf(k), before, after, fieldSeg(k));
  }
  for (const k in n) {
    const nv = n[k];
    if (o[k] === undefined && nv !== undefined && !skip(k))
      walkPair(undefined, nv, schemaOf(k), before, after, fieldSeg(k));
  }
}

/** What a write changed (leaves of next) and removed (leaves of old), as FieldsV1 trees. */
export interface ManagedChanges {
  changed: FieldsTree;
  removed: FieldsTree;
}

/**
 * The leaves of next that a write changed (new, or with another value) and the leaves of old it removed, found by
 * walking the two side by side and skipping the subtrees they share unchanged; the same sets as comparing
 * managedLeaves of each (managedFullLeaves) gives.
 */
export function managedChanges(
  old: KubeObject,
  next: KubeObject,
  schema: SchemaNode | undefined,
  subresource: string | undefined,
): ManagedChanges {
  const removed = new TreeCollector(undefined, '', {}, false);
  // Built in FieldsV1 order: the writer's new entry is this tree, and sortedTree then has little to reorder.
  const changed = new TreeCollector(undefined, '', {});
  const b = new DiffSide(undefined, '', new Map(), removed);
  const a = new DiffSide(undefined, '', new Map(), changed);
  if (subresource === 'status') {
    walkPair(old.status, next.status, schema?.property('status'), b, a, 'f:status');
  } else {
    const skip = (k: string) => k === 'apiVersion' || k === 'kind' || k === 'status' || k === 'metadata';
    const metaSchema = schema?.property('metadata');
    const oldMeta = old.metadata as unknown;
    const nextMeta = next.metadata as unknown;
    if (isObject(oldMeta) && isObject(nextMeta)) {
      walkPairFields(
        oldMeta,
        nextMeta,
        (k) => metaSchema?.property(k),
        b.under('f:metadata'),
        a.under('f:metadata'),
        (k) => UNMANAGED_METADATA.has(k),
      );
    } else {
      if (oldMeta !== undefined) walkPair(oldMeta, undefined, metaSchema, b, a, 'f:metadata');
      if (nextMeta !== undefined) walkPair(undefined, nextMeta, metaSchema, b, a, 'f:metadata');
    }
    walkPairFields(old, next, (k) => schema?.property(k), b, a, skip);
  }
  // The leaves recorded as paths on both sides are compared; the one-sided subtrees are in the trees already.
  const changedTree = changed.node();
  const removedTree = removed.node();
  for (const [p, v] of a.out) if (b.out.get(p) !== v) addPath(changedTree, p);
  for (const p of b.out.keys()) if (!a.out.has(p)) addPath(removedTree, p);
  return { changed: changedTree, removed: removedTree };
}

/** Puts a leaf path into a FieldsV1 tree. */
function addPath(tree: FieldsTree, path: string): void {
  let node = tree;
  const segs = path.split(SEP);
  for (let i = 1; i < segs.length; i++) {
    const seg = segs[i] as string;
    let child = node[seg] as FieldsTree | undefined;
    if (child === undefined) {
      child = {};
      node[seg] = child;
    }
    node = child;
  }
}

/** The leaf paths of a FieldsV1 tree, each with its leading separator (as managedLeaves gives them). */
export function leafPaths(tree: FieldsTree, prefix = '', out: string[] = []): string[] {
  for (const k in tree) {
    const child = tree[k] as FieldsTree;
    const path = `${prefix}${SEP}${k}`;
    if (isEmptyTree(child)) out.push(path);
    else leafPaths(child, path, out);
  }
  return out;
}

function isEmptyTree(node: unknown): boolean {
  if (!isObject(node)) return true;
  for (const _ in node) return false;
  return true;
}

/**
 * Whether a leaf of changes is (inFields true) or is not (false) a leaf of fields, as looking its path up in fields
 * would tell. With out, the paths of all such leaves are put in it; without, the walk stops at the first and makes
 * no path. A subtree of changes that fields has nothing of is decided at once.
 */
function leavesWhere(changes: FieldsTree, fields: unknown, inFields: boolean, out?: string[], prefix = ''): boolean {
  const node = isObject(fields) ? fields : undefined;
  let any = false;
  for (const k in changes) {
    const child = changes[k] as FieldsTree;
    const there = node?.[k];
    const path = out ? `${prefix}${SEP}${k}` : prefix;
    let found: boolean;
    if (isEmptyTree(child)) {
      found = (there !== undefined && isEmptyTree(there)) === inFields;
      if (found) out?.push(path);
    } else if (there === undefined) {
      found = !inFields;
      if (found && out) leafPaths(child, path, out);
    } else {
      found = leavesWhere(child, there, inFields, out, path);
    }
    if (found && !out) return true;
    any ||= found;
  }
  return any;
}

/**
 * A FieldsV1 tree made for this write, with every node's children in FieldsV1 (sorted) order: a node already in
 * order is kept (its children put in order in place), one that is not is copied in order.
 */
function sortedTree(tree: FieldsTree): FieldsTree {
  let prev: string | undefined;
  let ordered = true;
  for (const k in tree) {
    const child = tree[k] as FieldsTree;
    const sorted = sortedTree(child);
    if (sorted !== child) tree[k] = sorted;
    if (prev !== undefined && k < prev) ordered = false;
    prev = k;
  }
  if (ordered) return tree;
  const out: FieldsTree = {};
  for (const k of sortStrings(Object.keys(tree))) out[k] = tree[k];
  return out;
}

/** The leaves of old and next, each object walked whole: the reference managedChanges must agree with (tests). */
export function managedFullLeaves(
  old: KubeObject,
  next: KubeObject,
  schema: SchemaNode | undefined,
  subresource: string | undefined,
): { before: Map<string, string>; after: Map<string, string> } {
  return { before: managedLeaves(old, schema, subresource), after: managedLeaves(next, schema, subresource) };
}

/**
 * A FieldsV1 tree with some leaf paths taken out and others put in, as building a tree of the edited set of leaves
 * would make it, but copying only the nodes along the edited paths (the rest is shared with the given tree, which is
 * not changed). A node left empty by a removal goes too, up to the first node that still holds something; each node
 * that gained a child has its children in FieldsV1 order again.
 */
function editFieldsV1(tree: FieldsTree, removed: Iterable<string>, added: Iterable<string>): FieldsTree {
  const root: FieldsTree = { ...tree };
  const copies = new Set<FieldsTree>([root]);
  const grown = new Set<FieldsTree>();
  /** The node at segment seg of parent, copied once for this edit (made when create is set and it is missing). */
  const own = (parent: FieldsTree, seg: string, create: boolean): FieldsTree | undefined => {
    const child = parent[seg] as FieldsTree | undefined;
    if (child === undefined) {
      if (!create) return undefined;
      const made: FieldsTree = {};
      parent[seg] = made;
      copies.add(made);
      grown.add(parent);
      return made;
    }
    if (copies.has(child)) return child;
    const copy = { ...child };
    parent[seg] = copy;
    copies.add(copy);
    return copy;
  };
  for (const path of removed) {
    const segs = path.split(SEP);
    const spine: FieldsTree[] = [root];
    let node: FieldsTree | undefined = root;
    for (let i = 1; i < segs.length - 1 && node; i++) {
      node = own(node, segs[i] as string, false);
      if (node) spine.push(node);
    }
    if (!node) continue;
    delete node[segs[segs.length - 1] as string];
    // Up the spine, a node emptied by the removal goes from its parent.
    for (let i = spine.length - 1; i > 0; i--) {
      if (Object.keys(spine[i] as FieldsTree).length > 0) break;
      delete (spine[i - 1] as FieldsTree)[segs[i] as string];
    }
  }
  for (const path of added) {
    const segs = path.split(SEP);
    let node = root;
    for (let i = 1; i < segs.length; i++) node = own(node, segs[i] as string, true) as FieldsTree;
  }
  return grown.size === 0 ? root : sortGrown(root, grown);
}

/** The tree with the children of the grown nodes sorted (walking only the nodes copied for the edit). */
function sortGrown(node: FieldsTree, grown: ReadonlySet<FieldsTree>): FieldsTree {
  const keys = grown.has(node) ? sortStrings(Object.keys(node)) : Object.keys(node);
  const out: FieldsTree = {};
  for (const k of keys) {
    const child = node[k] as FieldsTree;
    out[k] = grownBelow(child, grown) ? sortGrown(child, grown) : child;
  }
  return out;
}

/** Whether a grown node is node or lies below it. */
function grownBelow(node: FieldsTree, grown: ReadonlySet<FieldsTree>): boolean {
  if (grown.has(node)) return true;
  for (const k in node) if (grownBelow(node[k] as FieldsTree, grown)) return true;
  return false;
}

/**
 * The managed fields after `manager` wrote `next` over `old` (undefined for a create): the manager gains what it
 * changed, everyone loses what it changed or removed, and entries left with nothing are dropped.
 */
export function updateManagedFields(
  entries: ManagedFieldsEntry[],
  old: KubeObject | undefined,
  next: KubeObject,
  opts: { manager: string; apiVersion: string; time: string; schema: SchemaNode | undefined; subresource?: string },
): ManagedFieldsEntry[] {
  if (!old && entries.length === 0) {
    // A create: the writer owns every field, and there is nothing to compare; the tree is built directly.
    const root = new TreeCollector(undefined, '', {});
    walkManaged(next, opts.schema, opts.subresource, root);
    const fieldsV1 = root.node();
    if (Object.keys(fieldsV1).length === 0) return [];
    return [ownEntry(fieldsV1, opts)];
  }
  let changes: ManagedChanges;
  if (old) {
    changes = managedChanges(old, next, opts.schema, opts.subresource);
    if (isEmptyTree(changes.changed) && isEmptyTree(changes.removed)) return entries;
  } else {
    // A create with entries already (another writer's): every field is a change.
    const all = new TreeCollector(undefined, '', {});
    walkManaged(next, opts.schema, opts.subresource, all);
    changes = { changed: all.node(), removed: {} };
  }
  const { changed, removed } = changes;
  const sameEntry = (e: ManagedFieldsEntry) =>
    e.manager === opts.manager && e.operation === 'Update' && (e.subresource ?? '') === (opts.subresource ?? '');
  const result: ManagedFieldsEntry[] = [];
  let own: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    if (sameEntry(e)) {
      own = e;
      continue;
    }
    // Another manager's entry keeps its set as it is unless this change took fields from it; most writes touch
    // few fields, so the changes are looked up in the entry's tree rather than the whole set listed.
    if (!leavesWhere(changed, e.fieldsV1, true) && !leavesWhere(removed, e.fieldsV1, true)) {
      result.push(e);
      continue;
    }
    const lost: string[] = [];
    leavesWhere(changed, e.fieldsV1, true, lost);
    leavesWhere(removed, e.fieldsV1, true, lost);
    const fieldsV1 = editFieldsV1(e.fieldsV1, lost, []);
    if (Object.keys(fieldsV1).length > 0) result.push({ ...e, fieldsV1 });
  }
  // The writer's set afterwards: its entry's, less what was removed, plus what it changed. When that is the set
  // it had (nothing of it removed, everything changed already in it), its tree is kept, with the new time.
  const ownFields = own && Object.keys(own.fieldsV1).length > 0 ? own.fieldsV1 : undefined;
  if (ownFields && !leavesWhere(removed, ownFields, true) && !leavesWhere(changed, ownFields, false)) {
    result.push(ownEntry(ownFields, opts));
    return result;
  }
  let mine: FieldsTree;
  if (ownFields) {
    const gone: string[] = [];
    const gained: string[] = [];
    leavesWhere(removed, ownFields, true, gone);
    leavesWhere(changed, ownFields, false, gained);
    mine = editFieldsV1(ownFields, gone, gained);
  } else {
    mine = sortedTree(changed);
  }
  if (Object.keys(mine).length > 0) result.push(ownEntry(mine, opts));
  return result;
}

function ownEntry(
  fieldsV1: Record<string, unknown>,
  opts: { manager: string; apiVersion: string; time: string; subresource?: string },
): ManagedFieldsEntry {
  return {
    manager: opts.manager,
    operation: 'Update',
    apiVersion: opts.apiVersion,
    time: opts.time,
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
  };
}

/** Upstream's FieldManagerMaxLength, in bytes. */
const FIELD_MANAGER_MAX_BYTES = 128;
/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * The manager of a request: ?fieldManager (checked by fieldManagerErrors), else the client's User-Agent up to its
 * first '/', its printable characters only, as many whole ones as fit in 128 bytes, as upstream's
 * prefixFromUserAgent.
 */
export function fieldManagerOf(query: URLSearchParams, userAgent: string | undefined): string {
  const explicit = query.get('fieldManager');
  if (explicit) return explicit;
  const head = (userAgent ?? '').split('/')[0] ?? '';
  // Every request asks (kubectl/…, kube-controller-manager/…): printable ASCII that fits is the prefix as it is.
  if (head.length <= FIELD_MANAGER_MAX_BYTES && /^[ -~]*$/.test(head)) return head || 'unknown';
  let agent = userAgent ?? '';
  // Node reads header bytes as Latin-1; Go takes them as UTF-8.
  if (/[\u0080-\uffff]/.test(agent)) agent = Buffer.from(agent, 'latin1').toString('utf8');
  let prefix = '';
  let bytes = 0;
  for (const c of agent.split('/')[0] ?? '') {
    if (!PRINTABLE.test(c)) continue;
    const size = Buffer.byteLength(c);
    if (bytes + size > FIELD_MANAGER_MAX_BYTES) break;
    prefix += c;
    bytes += size;
  }
  return prefix || 'unknown';
}

/**
 * ValidateFieldManager's complaints about ?fieldManager, as `fieldManager: …` texts: longer than 128 bytes, or a
 * character Go does not print (with its %#U and byte position).
 */
export function fieldManagerErrors(fieldManager: string): string[] {
  const errors: string[] = [];
  if (Buffer.byteLength(fieldManager) > FIELD_MANAGER_MAX_BYTES) {
    errors.push(`fieldManager: Too long: may not be more than ${FIELD_MANAGER_MAX_BYTES} bytes`);
  }
  let at = 0;
  for (const c of fieldManager) {
    if (!PRINTABLE.test(c)) {
      const code = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      errors.push(
        `fieldManager: Invalid value: ${JSON.stringify(fieldManager)}: invalid character U+${code} (at position ${at})`,
      );
    }
    at += Buffer.byteLength(c);
  }
  return errors;
}
