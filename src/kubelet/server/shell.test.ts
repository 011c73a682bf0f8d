import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/types.js';
import assert from '../../testing/assert.js';
import { containerEnvironment, containerFiles } from './pod-files.js';
import { interactiveShell, runCommand } from './shell.js';
import type { ExecIO, ObjectSource } from './types.js';

const pod: KubeObject = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1', labels: { app: 'web' } },
  spec: {
    nodeName: 'node-1',
    containers: [
      {
        name: 'app',
        env: [
          { name: 'GREETING', value: 'hello' },
          { name: 'MESSAGE', value: '$(GREETING) world' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'level' } } },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
        ],
        envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
        volumeMounts: [
          { name: 'config', mountPath: '/etc/config' },
          { name: 'secret', mountPath: '/etc/secret', readOnly: true },
          { name: 'info', mountPath: '/etc/podinfo' },
          { name: 'one', mountPath: '/etc/app.conf', subPath: 'app.conf' },
          { name: 'api', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
        ],
      },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'cfg' } },
      { name: 'secret', secret: { secretName: 'creds', items: [{ key: 'password', path: 'db/password' }] } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'one', configMap: { name: 'cfg' } },
      {
        name: 'api',
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { serviceAccountToken: { audience: 'vault', path: 'vault-token' } },
          ],
        },
      },
    ],
  },
  status: { podIP: '10.244.1.5' },
};

const objects: ObjectSource = {
  configMap: async (_ns, name) =>
    name === 'cfg'
      ? { metadata: { name }, data: { level: 'debug', 'app.conf': 'port=80\n', greeting: 'hi\n' } }
      : undefined,
  secret: async (_ns, name) =>
    name === 'creds' ? { metadata: { name }, data: { password: Buffer.from('s3cret').toString('base64') } } : undefined,
  serviceAccountToken: async (p, source, node) =>
    `token for ${p.metadata.name} on ${node}, audience '${source.audience}', ${source.expirationSeconds} s`,
  services: async (namespace) => {
    const service = (name: string, clusterIP: string, ports: unknown[]): KubeObject => ({
      metadata: { name, namespace },
      spec: { clusterIP, ports },
    });
    if (namespace === 'default') return [service('kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }])];
    return [
      service('my-db', '10.96.50.3', [
        { name: 'postgres', port: 5432 },
        { port: 9187, protocol: 'UDP' },
      ]),
      service('headless', 'None', [{ port: 80 }]),
    ];
  },
};

interface Captured {
  io: ExecIO;
  out: () => string;
  err: () => string;
}

function capture(opts: { stdin?: string[]; tty?: boolean } = {}): Captured {
  let out = '';
  let err = '';
  const stdin = opts.stdin
    ? (async function* () {
        for (const s of opts.stdin ?? []) yield Buffer.from(s);
      })()
    : undefined;
  return {
    io: {
      stdin,
      tty: opts.tty ?? false,
      signal: new AbortController().signal,
      stdout: (d) => {
        out += d.toString();
      },
      stderr: (d) => {
        err += d.toString();
      },
    },
    out: () => out,
    err: () => err,
  };
}

async function exec(argv: string[], opts: { stdin?: string[]; tty?: boolean } = {}) {
  const c = capture(opts);
  const env = await containerEnvironment(pod, 'app', objects);
  const files = await containerFiles(pod, 'app', objects);
  const code = await runCommand(argv, { env, files, io: c.io, cwd: '/' });
  return { code, out: c.out(), err: c.err() };
}

describe('the built-in command set', () => {
  it('echoes, succeeds and fails', async () => {
    assert.deepEqual(await exec(['echo', 'hi', 'there']), { code: 0, out: 'hi there\n', err: '' });
    assert.deepEqual(await exec(['echo', '-n', 'x']), { code: 0, out: 'x', err: '' });
    assert.equal((await exec(['true'])).code, 0);
    assert.equal((await exec(['/bin/false'])).code, 1);
    assert.deepEqual(await exec(['hostname']), { code: 0, out: 'web\n', err: '' });
  });

  it('resolves the environment as the kubelet does', async () => {
    const { out } = await exec(['env']);
    const lines = out.trim().split('\n');
    assert.equal(lines[0], 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    assert.ok(lines.includes('HOSTNAME=web'));
    assert.ok(lines.includes('GREETING=hello'));
    assert.ok(lines.includes('MESSAGE=hello world'), 'a $(VAR) reference to an earlier variable is expanded');
    assert.ok(lines.includes('POD_NAME=web'));
    assert.ok(lines.includes('LEVEL=debug'));
    assert.ok(lines.includes('PASSWORD=s3cret'));
    assert.ok(lines.includes('CFG_level=debug'), 'envFrom with a prefix');
    // Services: the namespace's with a cluster IP, and kubernetes from default, as upstream's kubelet sets them.
    for (const line of [
      'KUBERNETES_SERVICE_HOST=10.96.0.1',
      'KUBERNETES_SERVICE_PORT=443',
      'KUBERNETES_SERVICE_PORT_HTTPS=443',
      'KUBERNETES_PORT=tcp://10.96.0.1:443',
      'KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443',
      'KUBERNETES_PORT_443_TCP_PROTO=tcp',
      'KUBERNETES_PORT_443_TCP_PORT=443',
      'KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1',
      'MY_DB_SERVICE_HOST=10.96.50.3',
      'MY_DB_SERVICE_PORT=5432',
      'MY_DB_SERVICE_PORT_POSTGRES=5432',
      'MY_DB_PORT=tcp://10.96.50.3:5432',
      'MY_DB_PORT_9187_UDP=udp://10.96.50.3:9187',
      'MY_DB_PORT_9187_UDP_PROTO=udp',
    ]) {
      assert.ok(lines.includes(line), line);
    }
    assert.ok(!lines.some((l) => l.startsWith('HEADLESS_')), 'a headless Service has no variables');
    assert.equal(lines.at(-1), 'HOME=/root');
    assert.deepEqual(await exec(['printenv', 'LEVEL']), { code: 0, out: 'debug\n', err: '' });
    assert.equal((await exec(['printenv', 'NOPE'])).code, 1);
  });

  it('reads mounted ConfigMap, Secret and downward API files', async () => {
    assert.deepEqual(await exec(['cat', '/etc/config/app.conf']), { code: 0, out: 'port=80\n', err: '' });
    assert.deepEqual(await exec(['cat', '/etc/secret/db/password']), { code: 0, out: 's3cret', err: '' });
    assert.deepEqual(await exec(['cat', '/etc/podinfo/labels']), { code: 0, out: 'app="web"', err: '' });
    assert.deepEqual(await exec(['cat', '/etc/app.conf']), { code: 0, out: 'port=80\n', err: '' }, 'subPath');
    // A projected service account token, as the pod's node asks for it (an hour when no lifetime is given).
    const sa = '/var/run/secrets/kubernetes.io/serviceaccount';
    assert.deepEqual(await exec(['cat', `${sa}/token`]), {
      code: 0,
      out: "token for web on node-1, audience '', 3607 s",
      err: '',
    });
    assert.deepEqual(await exec(['cat', `${sa}/vault-token`]), {
      code: 0,
      out: "token for web on node-1, audience 'vault', 3600 s",
      err: '',
    });
    assert.deepEqual(await exec(['cat', '/etc/config/missing']), {
      code: 1,
      out: '',
      err: 'cat: /etc/config/missing: No such file or directory\n',
    });
    assert.deepEqual(await exec(['cat', '/etc/config']), {
      code: 1,
      out: '',
      err: 'cat: /etc/config: Is a directory\n',
    });
  });

  it('lists directories', async () => {
    assert.deepEqual(await exec(['ls', '/etc/config']), { code: 0, out: 'app.conf\ngreeting\nlevel\n', err: '' });
    assert.deepEqual(await exec(['ls', '/etc/secret']), { code: 0, out: 'db\n', err: '' });
    // The name-resolution files the kubelet writes (pod-dns.ts), with kubeadm's cluster DNS.
    assert.deepEqual(await exec(['cat', '/etc/resolv.conf']), {
      code: 0,
      out: 'search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
      err: '',
    });
    assert.match(
      (await exec(['cat', '/etc/hosts'])).out,
      /^# Kubernetes-managed hosts file\.\n127\.0\.0\.1\tlocalhost\n/,
    );
    assert.deepEqual(await exec(['ls', '/nope']), {
      code: 2,
      out: '',
      err: "ls: cannot access '/nope': No such file or directory\n",
    });
    const root = await exec(['ls', '/']);
    assert.ok(root.out.split('\n').includes('etc'));
  });

  it('answers an unknown command as a shell does', async () => {
    assert.deepEqual(await exec(['nginx', '-t']), { code: 127, out: '', err: 'sh: nginx: not found\n' });
  });

  it('copies stdin with cat', async () => {
    assert.deepEqual(await exec(['cat'], { stdin: ['a\n', 'b\n'] }), { code: 0, out: 'a\nb\n', err: '' });
  });
});

describe('sh -c', () => {
  const sh = (script: string) => exec(['sh', '-c', script]);

  it('exits with the given code', async () => {
    assert.equal((await sh('exit 3')).code, 3);
    assert.equal((await sh('exit')).code, 0);
    assert.equal((await sh('exit 256')).code, 0);
    assert.equal((await sh('false')).code, 1);
  });

  it('runs sequences, && and || with $?', async () => {
    assert.deepEqual(await sh('echo a; echo b'), { code: 0, out: 'a\nb\n', err: '' });
    assert.deepEqual(await sh('false && echo no || echo yes'), { code: 0, out: 'yes\n', err: '' });
    assert.deepEqual(await sh('false; echo $?'), { code: 0, out: '1\n', err: '' });
    assert.deepEqual(await sh('echo one; exit 4; echo never'), { code: 4, out: 'one\n', err: '' });
  });

  it('expands variables and honours quotes', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell script, not a template
    assert.deepEqual(await sh('echo "$GREETING, ${POD_NAME}" \'$GREETING\''), {
      code: 0,
      out: 'hello, web $GREETING\n',
      err: '',
    });
    assert.deepEqual(await sh('X=1; export Y=2; echo $X$Y'), { code: 0, out: '12\n', err: '' });
    assert.deepEqual(await exec(['sh', '-c', 'echo $0 $1', 'name', 'arg']), { code: 0, out: 'name arg\n', err: '' });
  });

  it('redirects output and reads files on stdin', async () => {
    assert.deepEqual(await sh('echo out; echo err >&2'), { code: 0, out: 'out\n', err: 'err\n' });
    assert.deepEqual(await sh('cat /nope 2>/dev/null || echo missing'), { code: 0, out: 'missing\n', err: '' });
    assert.deepEqual(await sh('cat < /etc/config/level'), { code: 0, out: 'debug', err: '' });
    assert.deepEqual(await sh('echo x > /tmp/f'), {
      code: 2,
      out: '',
      err: 'sh: 1: cannot create /tmp/f: Read-only file system\n',
    });
  });

  it('changes directory', async () => {
    assert.deepEqual(await sh('cd /etc/config && cat level && pwd'), { code: 0, out: 'debug/etc/config\n', err: '' });
  });

  it('says what it cannot do', async () => {
    const r = await sh('env | grep X');
    assert.equal(r.code, 2);
    assert.match(r.err, /"\|" is not supported by the simulated shell/);
    assert.equal((await sh('nope')).err, 'sh: nope: not found\n');
    assert.equal((await sh('nope')).code, 127);
  });
});

describe('interactive sh', () => {
  it('runs the lines it reads until exit', async () => {
    const c = capture({ stdin: ['echo one\n', 'exit 5\n', 'echo never\n'] });
    const env = await containerEnvironment(pod, 'app', objects);
    const files = await containerFiles(pod, 'app', objects);
    const code = await interactiveShell({ env, files, io: c.io, cwd: '/' });
    assert.equal(code, 5);
    assert.equal(c.out(), 'one\n');
  });

  it('prompts and echoes on a terminal', async () => {
    const c = capture({ stdin: ['ech', 'o hi\r', '\x04'], tty: true });
    const env = await containerEnvironment(pod, 'app', objects);
    const files = await containerFiles(pod, 'app', objects);
    const code = await interactiveShell({ env, files, io: c.io, cwd: '/' });
    assert.equal(code, 0);
    assert.equal(c.out(), '# echo hi\nhi\n# \n');
  });
});
