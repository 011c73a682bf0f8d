/**
 * The real kubectl against `wheelhouse up --nodes 3`: kube-scheduler, simulated kubelets, the disruption
 * controller and pods/eviction together, as a user sees them (issue 5's acceptance). One cluster serves every
 * test, in order; each test cleans up what would get in the next one's way. Node failure is in
 * node-failure.test.ts (it needs shortened node-lifecycle flags).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import assert from '../../src/testing/assert.js';
import { eventually } from '../../src/testing/controllers.js';
import { nodesReady } from '../../src/testing/kubectl.js';
import { startWheelhouse, WHEELHOUSE_BIN, type WheelhouseProcess } from '../../src/testing/wheelhouse-process.js';

const run = promisify(execFile);

interface Pod {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string; priority?: number };
  status: { phase?: string; podIP?: string; nominatedNodeName?: string };
}

/** A regular expression matching `text` literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The cells of `wheelhouse explain`'s node × plugin table: node name → plugin → verdict. */
function verdictTable(out: string): Map<string, Map<string, string>> {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith('NODE '));
  assert.ok(start >= 0, out);
  const header = (lines[start] as string).trim().split(/\s{2,}/);
  const table = new Map<string, Map<string, string>>();
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const cells = line.trim().split(/\s{2,}/);
    table.set(cells[0] as string, new Map(header.slice(1).map((plugin, i) => [plugin, cells[i + 1] ?? ''])));
  }
  return table;
}

describe('kubectl against wheelhouse up --nodes 3: scheduling, preemption and drain', () => {
  const root = mkdtempSync(join(tmpdir(), 'wheelhouse-sched-e2e-'));
  const dataDir = join(root, 'data');
  let up: WheelhouseProcess;
  const kubectlFull = (...args: string[]) =>
    run('kubectl', ['--kubeconfig', join(dataDir, 'kubeconfig'), '--cache-dir', join(root, 'kcache'), ...args], {
      timeout: 90_000,
    });
  const kubectl = async (...args: string[]) => (await kubectlFull(...args)).stdout;
  const wheelhouse = async (...args: string[]) => (await run(process.execPath, [WHEELHOUSE_BIN, ...args])).stdout;
  let manifests = 0;
  /** Writes a YAML manifest and runs kubectl apply -f on it. */
  const apply = async (yaml: string) => {
    const file = join(root, `manifest-${++manifests}.yaml`);
    writeFileSync(file, yaml);
    return kubectl('apply', '-f', file);
  };
  const pods = async (ns: string, selector?: string): Promise<Pod[]> =>
    JSON.parse(await kubectl('get', 'pods', '-n', ns, ...(selector ? ['-l', selector] : []), '-o', 'json')).items;
  const pod = async (ns: string, name: string): Promise<Pod> =>
    JSON.parse(await kubectl('get', 'pod', name, '-n', ns, '-o', 'json'));
  const slow = { timeoutMs: 30_000, intervalMs: 200 };

  before(async () => {
    up = await startWheelhouse('up', ['--storage', 'memory', '--data-dir', dataDir, '--nodes', '3']);
    await nodesReady(kubectl, 3, slow);
  });
  after(async () => {
    if (up) assert.equal(await up.stop(), 0, up.out());
    rmSync(root, { recursive: true, force: true });
  });

  it('kubectl apply of a 3-replica Deployment: 3 Running pods with IPs on nodes, and Scheduled events', async () => {
    assert.match(
      await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: nginx:1.27
        resources: {requests: {cpu: 100m, memory: 64Mi}}
`),
      /^deployment\.apps\/web created$/m,
    );
    const wide = await eventually(async () => {
      const out = await kubectl('get', 'pods', '-o', 'wide');
      assert.match(out, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/m);
      const rows = out.match(
        /^web-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-[123]\s+<none>\s+<none>$/gm,
      );
      assert.equal(rows?.length, 3, out);
      return out;
    }, slow);
    // Each pod's IP comes from its node's podCIDR.
    const cidrs = new Map<string, string>(
      JSON.parse(await kubectl('get', 'nodes', '-o', 'json')).items.map(
        (n: { metadata: { name: string }; spec: { podCIDR: string } }) => [n.metadata.name, n.spec.podCIDR],
      ),
    );
    const running = await pods('default', 'app=web');
    assert.equal(running.length, 3);
    for (const p of running) {
      const cidr = cidrs.get(p.spec.nodeName as string) as string;
      assert.match(cidr, /^10\.244\.\d+\.0\/24$/);
      assert.equal(p.status.podIP?.split('.').slice(0, 3).join('.'), cidr.split('.').slice(0, 3).join('.'), wide);
    }
    assert.match(await kubectl('get', 'deployment', 'web'), /^web\s+3\/3\s+3\s+3\s+/m);

    const events = await eventually(async () => {
      const out = await kubectl('get', 'events');
      assert.match(out, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
      for (const p of running) {
        const name = p.metadata.name;
        assert.match(
          out,
          new RegExp(
            `^\\S+\\s+Normal\\s+Scheduled\\s+pod/${name}\\s+Successfully assigned default/${name} to ${p.spec.nodeName}$`,
            'm',
          ),
        );
      }
      return out;
    }, slow);
    assert.match(
      events,
      /^\S+\s+Normal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up replica set web-\S+ from 0 to 3$/m,
    );
  });

  it('a pod too big for any node stays Pending: describe shows FailedScheduling, explain names NodeResourcesFit', async () => {
    await apply(`apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: "100"}}
`);
    const line =
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    const describe = await eventually(async () => {
      const out = await kubectl('describe', 'pod', 'huge');
      assert.match(out, new RegExp(`Warning\\s+FailedScheduling\\s+.*default-scheduler\\s+${literal(line)}$`, 'm'));
      return out;
    }, slow);
    assert.match(describe, /^Status:\s+Pending$/m);
    assert.match(describe, /^Node:\s+<none>$/m);
    assert.match(describe, /^\s+PodScheduled\s+False\s*$/m);
    assert.match(await kubectl('get', 'pod', 'huge'), /^huge\s+0\/1\s+Pending\s+0\s+/m);
    const p = await pod('default', 'huge');
    assert.equal(p.spec.nodeName, undefined);

    const explain = await wheelhouse('explain', 'pod', 'huge', '-n', 'default', '--data-dir', dataDir);
    assert.match(explain, new RegExp(literal(line)));
    const table = verdictTable(explain);
    assert.deepEqual([...table.keys()].sort(), ['node-1', 'node-2', 'node-3']);
    for (const [node, plugins] of table) {
      assert.equal(plugins.get('NodeResourcesFit'), 'Insufficient cpu', `${node}\n${explain}`);
      for (const ok of ['NodeUnschedulable', 'NodeName', 'TaintToleration']) {
        assert.equal(plugins.get(ok), 'ok', `${node} ${ok}\n${explain}`);
      }
    }
    // The pod stays Pending: still no node after another look.
    assert.equal((await pod('default', 'huge')).status.phase, 'Pending');
  });

  it('taints and tolerations, nodeSelector: new pods avoid a tainted node unless they tolerate it', async () => {
    const ns = 'taints';
    await kubectl('create', 'namespace', ns);
    assert.match(await kubectl('taint', 'nodes', 'node-1', 'dedicated=x:NoSchedule'), /^node\/node-1 tainted$/m);
    try {
      assert.match(await kubectl('describe', 'node', 'node-1'), /^Taints:\s+dedicated=x:NoSchedule$/m);
      const pinned = (name: string, node: string, tolerate: boolean) => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  terminationGracePeriodSeconds: 1
  nodeSelector: {kubernetes.io/hostname: ${node}}
${tolerate ? '  tolerations: [{key: dedicated, operator: Equal, value: x, effect: NoSchedule}]\n' : ''}  containers: [{name: c, image: nginx}]
`;
      await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: many, namespace: ${ns}}
spec:
  replicas: 6
  selector: {matchLabels: {app: many}}
  template:
    metadata: {labels: {app: many}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: c, image: nginx}]
${pinned('tolerant', 'node-1', true)}${pinned('intolerant', 'node-1', false)}${pinned('on-node-2', 'node-2', false)}`);

      const wide = await eventually(async () => {
        const out = await kubectl('get', 'pods', '-n', ns, '-o', 'wide');
        assert.equal(out.match(/^many-\S+\s+1\/1\s+Running\s+.*\s+node-[23]\s+<none>\s+<none>$/gm)?.length, 6, out);
        assert.match(out, /^tolerant\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-1\s+/m);
        assert.match(out, /^on-node-2\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+node-2\s+/m);
        assert.match(out, /^intolerant\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+/m);
        return out;
      }, slow);
      assert.doesNotMatch(wide, /^many-\S+\s.*\snode-1\s/m);

      const line =
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: x}, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
      await eventually(async () => {
        const out = await kubectl('describe', 'pod', 'intolerant', '-n', ns);
        assert.match(out, new RegExp(`Warning\\s+FailedScheduling\\s+.*default-scheduler\\s+${literal(line)}$`, 'm'));
      }, slow);
      const table = verdictTable(await wheelhouse('explain', 'pod', 'intolerant', '-n', ns, '--data-dir', dataDir));
      assert.equal(table.get('node-1')?.get('TaintToleration'), 'node(s) had untolerated taint {dedicated: x}');
      for (const node of ['node-2', 'node-3']) {
        assert.equal(table.get(node)?.get('TaintToleration'), 'ok');
        assert.equal(table.get(node)?.get('NodeAffinity'), "node(s) didn't match Pod's node affinity/selector");
      }
    } finally {
      assert.match(await kubectl('taint', 'nodes', 'node-1', 'dedicated=x:NoSchedule-'), /^node\/node-1 untainted$/m);
    }
    // The node's change brings the waiting pod back to the scheduler: it lands on node-1 now.
    await eventually(async () => {
      const p = await pod(ns, 'intolerant');
      assert.equal(p.spec.nodeName, 'node-1');
      assert.equal(p.status.phase, 'Running');
    }, slow);
    // What is left of the namespace goes in the background; nothing in it is in the following tests' way.
    assert.match(await kubectl('delete', 'namespace', ns, '--wait=false'), /namespace "taints" deleted/);
  });

  it('required pod anti-affinity on hostname spreads 3 replicas over 3 nodes; a 4th stays Pending', async () => {
    const ns = 'spread';
    await kubectl('create', 'namespace', ns);
    await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: spread, namespace: ${ns}}
spec:
  replicas: 3
  selector: {matchLabels: {app: spread}}
  template:
    metadata: {labels: {app: spread}}
    spec:
      terminationGracePeriodSeconds: 1
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: spread}}
            topologyKey: kubernetes.io/hostname
      containers: [{name: c, image: nginx}]
`);
    await eventually(async () => {
      const list = await pods(ns);
      assert.equal(list.length, 3);
      assert.ok(list.every((p) => p.status.phase === 'Running'));
      assert.deepEqual(list.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3']);
    }, slow);

    assert.match(
      await kubectl('scale', 'deployment', 'spread', '-n', ns, '--replicas', '4'),
      /deployment\.apps\/spread scaled/,
    );
    const pending = await eventually(async () => {
      const list = (await pods(ns)).filter((p) => !p.spec.nodeName);
      assert.equal(list.length, 1);
      return list[0] as Pod;
    }, slow);
    const name = pending.metadata.name;
    const line =
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    await eventually(async () => {
      const out = await kubectl('describe', 'pod', name, '-n', ns);
      assert.match(out, new RegExp(`Warning\\s+FailedScheduling\\s+.*default-scheduler\\s+${literal(line)}$`, 'm'));
    }, slow);
    const table = verdictTable(await wheelhouse('explain', 'pod', name, '-n', ns, '--data-dir', dataDir));
    for (const node of ['node-1', 'node-2', 'node-3']) {
      assert.equal(table.get(node)?.get('InterPodAffinity'), "node(s) didn't match pod anti-affinity rules");
    }
    assert.match(await kubectl('get', 'pod', name, '-n', ns), new RegExp(`^${name}\\s+0/1\\s+Pending\\s+`, 'm'));
    assert.match(await kubectl('delete', 'namespace', ns, '--wait=false'), /namespace "spread" deleted/);
  });

  it('a high-priority pod preempts a low-priority one on full nodes', async () => {
    const ns = 'prio';
    await kubectl('create', 'namespace', ns);
    // Each node has 8 cpus: a 7-cpu pod fills one, so the three low pods take one node each.
    const pod7 = (name: string, extra = '') => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}}
spec:
  terminationGracePeriodSeconds: 1
${extra}  containers: [{name: c, image: nginx, resources: {requests: {cpu: "7"}}}]
`;
    await apply(`apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
description: for the preemption test
${pod7('low-1')}${pod7('low-2')}${pod7('low-3')}`);
    const lows = await eventually(async () => {
      const list = await pods(ns);
      assert.equal(list.length, 3);
      assert.ok(list.every((p) => p.status.phase === 'Running'));
      return list;
    }, slow);
    assert.deepEqual(lows.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3']);
    const lowOn = new Map(lows.map((p) => [p.spec.nodeName as string, p.metadata.name]));

    await apply(pod7('important', '  priorityClassName: high\n'));
    const important = await eventually(async () => {
      const p = await pod(ns, 'important');
      assert.equal(p.status.phase, 'Running');
      return p;
    }, slow);
    assert.equal(important.spec.priority, 1000);
    const node = important.spec.nodeName as string;
    assert.equal(important.status.nominatedNodeName, node);
    const victim = lowOn.get(node) as string;
    const left = (await pods(ns)).map((p) => p.metadata.name).sort();
    assert.deepEqual(
      left,
      ['important', ...lows.map((p) => p.metadata.name).filter((n) => n !== victim)].sort(),
      'the victim is gone, the other low pods still run',
    );
    const events = await kubectl('get', 'events', '-n', ns);
    assert.match(
      events,
      new RegExp(
        `^\\S+\\s+Normal\\s+Preempted\\s+pod/${victim}\\s+Preempted by pod ${important.metadata.uid} on node ${node}$`,
        'm',
      ),
    );
    assert.match(
      events,
      new RegExp(
        `^\\S+\\s+Normal\\s+Scheduled\\s+pod/important\\s+Successfully assigned prio/important to ${node}$`,
        'm',
      ),
    );
    const describe = await kubectl('describe', 'pod', 'important', '-n', ns);
    assert.match(describe, /^Priority:\s+1000$/m);
    assert.match(describe, /^Priority Class Name:\s+high$/m);
    assert.match(
      describe,
      /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\.$/m,
    );
    // Bare pods would stop the drain below: they go first (kubectl waits for them), then the namespace.
    assert.match(await kubectl('delete', 'pods', '--all', '-n', ns), /pod "important" deleted/);
    assert.match(await kubectl('delete', 'namespace', ns, '--wait=false'), /namespace "prio" deleted/);
    await kubectl('delete', 'priorityclass', 'high');
  });

  it('kubectl drain respects a PodDisruptionBudget and completes once the replacement is ready elsewhere', async () => {
    const ns = 'shop';
    await kubectl('create', 'namespace', ns);
    // Both replicas start on node-3: the other nodes are cordoned meanwhile.
    assert.match(await kubectl('cordon', 'node-1', 'node-2'), /^node\/node-1 cordoned$/m);
    try {
      await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      terminationGracePeriodSeconds: 1
      containers: [{name: c, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: shop, namespace: ${ns}}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: shop}}
`);
      await eventually(async () => {
        const list = await pods(ns);
        assert.equal(list.length, 2);
        assert.ok(list.every((p) => p.status.phase === 'Running' && p.spec.nodeName === 'node-3'));
      }, slow);
    } finally {
      assert.match(await kubectl('uncordon', 'node-1', 'node-2'), /^node\/node-2 uncordoned$/m);
    }
    await eventually(async () => {
      assert.match(
        await kubectl('get', 'pdb', '-n', ns),
        /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n^shop\s+1\s+N\/A\s+1\s+/m,
      );
    }, slow);
    const before = (await pods(ns)).map((p) => p.metadata.name);

    const drain = await kubectlFull(
      'drain',
      'node-3',
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=60s',
    );
    assert.match(drain.stdout, /^node\/node-3 cordoned$/m);
    for (const name of before) {
      assert.match(drain.stdout, new RegExp(`^evicting pod shop/${name}$`, 'm'));
      assert.match(drain.stdout, new RegExp(`^pod/${name} evicted$`, 'm'));
    }
    // One of the two evictions is refused at first: the budget allows one disruption.
    assert.match(
      drain.stderr,
      /^error when evicting pods\/"shop-[a-z0-9]+-[a-z0-9]{5}" -n "shop" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\.$/m,
    );
    assert.match(drain.stdout, /^node\/node-3 drained$/m);

    assert.match(await kubectl('get', 'nodes'), /^node-3\s+Ready,SchedulingDisabled\s+/m);
    await eventually(async () => {
      const list = await pods(ns);
      assert.equal(list.length, 2);
      for (const p of list) {
        assert.ok(!before.includes(p.metadata.name), 'replaced');
        assert.equal(p.status.phase, 'Running');
        assert.notEqual(p.spec.nodeName, 'node-3');
      }
    }, slow);
    const onNode3 = JSON.parse(
      await kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-3', '-o', 'json'),
    ).items;
    assert.deepEqual(onNode3, []);
    assert.match(await kubectl('uncordon', 'node-3'), /^node\/node-3 uncordoned$/m);
    assert.match(await kubectl('get', 'nodes'), /^node-3\s+Ready\s+/m);
  });
});
