import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificateAndKey } from '../../util/certificates.js';

/** `<name>.crt` and `<name>.key` in a PKI directory, as kubeadm names them. */
export function pemPairPaths(dir: string, name: string): { certFile: string; keyFile: string } {
  return { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
}

/** Reads one file of a pair, or undefined when it does not exist. */
export async function readPemFile(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Both files of a pair, or undefined when either is missing. */
export async function readPemPair(dir: string, name: string): Promise<CertificateAndKey | undefined> {
  const { certFile, keyFile } = pemPairPaths(dir, name);
  const [certPem, keyPem] = await Promise.all([readPemFile(certFile), readPemFile(keyFile)]);
  return certPem === undefined || keyPem === undefined ? undefined : { certPem, keyPem };
}

/**
 * Writes the key (mode 0600), then the certificate (0644). Each file is written whole to a temporary name, synced
 * and renamed into place, so a crash leaves the old file or the new one, never half of one. Key first: a first
 * start that crashes between the two leaves a key without a certificate, which counts as no pair at all.
 */
export async function writePemPair(dir: string, name: string, pair: CertificateAndKey): Promise<void> {
  const { certFile, keyFile } = pemPairPaths(dir, name);
  await writeFileAtomic(keyFile, pair.keyPem, 0o600);
  await writeFileAtomic(certFile, pair.certPem, 0o644);
}

export async function writeFileAtomic(file: string, data: string, mode: number): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}
