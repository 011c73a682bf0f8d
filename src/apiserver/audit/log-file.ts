/**
 * The audit log file (--audit-log-path): one line per event, appended synchronously so events are in order and
 * survive a crash. Rotation as kube-apiserver's (lumberjack's): past --audit-log-maxsize megabytes the file is
 * renamed to `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` beside it and a new one started; backups beyond
 * --audit-log-maxbackup, or older than --audit-log-maxage days, are removed. `-` writes to standard output.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface LogFileOptions {
  path: string;
  /** Megabytes before rotation; 0 (default): never rotated. */
  maxSize?: number;
  /** Backups kept; 0 (default): all. */
  maxBackups?: number;
  /** Days a backup is kept; 0 (default): forever. */
  maxAge?: number;
  /** The clock (tests). */
  now?: () => Date;
}

const MEGABYTE = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** lumberjack's backup time stamp: 2006-01-02T15-04-05.000, UTC. */
export function backupTimestamp(t: Date): string {
  return t.toISOString().slice(0, 23).replace(/:/g, '-');
}

export class AuditLogFile {
  private fd: number | undefined;
  private size = 0;
  private readonly now: () => Date;

  constructor(private readonly opts: LogFileOptions) {
    this.now = opts.now ?? (() => new Date());
    if (opts.path !== '-') this.open();
  }

  private open(): void {
    mkdirSync(dirname(this.opts.path), { recursive: true });
    this.fd = openSync(this.opts.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(line: string): void {
    if (this.opts.path === '-') {
      process.stdout.write(line);
      return;
    }
    const bytes = Buffer.byteLength(line);
    const max = (this.opts.maxSize ?? 0) * MEGABYTE;
    if (max > 0 && this.size > 0 && this.size + bytes > max) this.rotate();
    if (this.fd === undefined) this.open();
    writeSync(this.fd as number, line);
    this.size += bytes;
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    const path = this.opts.path;
    const ext = extname(path);
    const stem = basename(path, ext);
    renameSync(path, join(dirname(path), `${stem}-${backupTimestamp(this.now())}${ext}`));
    this.open();
    this.removeOldBackups(stem, ext);
  }

  /** The backups beside the log, newest first. */
  backups(): string[] {
    const path = this.opts.path;
    const ext = extname(path);
    const stem = basename(path, ext);
    const pattern = /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3})$/;
    return readdirSync(dirname(path))
      .filter(
        (f) =>
          f.startsWith(`${stem}-`) && f.endsWith(ext) && pattern.test(f.slice(stem.length + 1, f.length - ext.length)),
      )
      .sort()
      .reverse()
      .map((f) => join(dirname(path), f));
  }

  private removeOldBackups(stem: string, ext: string): void {
    const maxBackups = this.opts.maxBackups ?? 0;
    const maxAge = this.opts.maxAge ?? 0;
    if (maxBackups <= 0 && maxAge <= 0) return;
    const cutoff = this.now().getTime() - maxAge * DAY_MS;
    this.backups().forEach((file, i) => {
      const stamp = basename(file, ext).slice(stem.length + 1);
      const [date = '', time = ''] = stamp.split('T');
      const when = Date.parse(`${date}T${time.slice(0, 8).replace(/-/g, ':')}${time.slice(8)}Z`);
      const tooMany = maxBackups > 0 && i >= maxBackups;
      const tooOld = maxAge > 0 && when < cutoff;
      if (tooMany || tooOld) {
        try {
          unlinkSync(file);
        } catch {
          // Already gone.
        }
      }
    });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
