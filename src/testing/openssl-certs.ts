import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/**
 * Makes a throwaway CA, a serving certificate for 127.0.0.1/localhost and a client certificate (ECDSA P-256) with the
 * openssl command, for tests of TLS between wheelhouse and other programs (etcd).
 */
export function makeTestCerts(dir: string): TestCerts {
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const key = (file: string) => openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file);
  key(f('ca.key'));
  openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    f('ca.key'),
    '-subj',
    '/CN=wheelhouse-test-ca',
    '-days',
    '2',
    '-out',
    f('ca.crt'),
  );
  const issue = (name: string, subject: string, ext: string) => {
    key(f(`${name}.key`));
    openssl('req', '-new', '-key', f(`${name}.key`), '-subj', subject, '-out', f(`${name}.csr`));
    writeFileSync(f(`${name}.ext`), ext);
    openssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.crt`),
    );
  };
  issue(
    'server',
    '/CN=etcd-server',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  issue('client', '/CN=kube-apiserver-etcd-client', 'extendedKeyUsage=clientAuth\n');
  return {
    caFile: f('ca.crt'),
    serverCertFile: f('server.crt'),
    serverKeyFile: f('server.key'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
  };
}
