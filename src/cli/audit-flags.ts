import type { AuditOptions } from '../apiserver/audit/auditor.js';
import { UsageError } from './storage-flags.js';

/** kube-apiserver's audit log flags, with upstream's names and defaults. */
export const auditFlagSpec = {
  'audit-policy-file': { type: 'string' },
  'audit-log-path': { type: 'string' },
  'audit-log-maxsize': { type: 'string' },
  'audit-log-maxbackup': { type: 'string' },
  'audit-log-maxage': { type: 'string' },
  'audit-log-compress': { type: 'string' },
  'audit-log-format': { type: 'string' },
  'audit-log-mode': { type: 'string' },
} as const;

export const auditFlagsHelp = `  --audit-policy-file FILE         an audit.k8s.io/v1 Policy: which requests are audited, at which level
  --audit-log-path PATH            where audit events go, one JSON line each ('-' for standard output)
  --audit-log-maxsize MB           rotate the log past this size (default 0: lumberjack's 100 MB)
  --audit-log-maxbackup N          rotated files kept (default 0: all)
  --audit-log-maxage DAYS          days rotated files are kept (default 0: forever)
  --audit-log-compress             gzip rotated files (or =true|false; default false)
  --audit-log-format json|legacy   (default json)
  --audit-log-mode blocking|batch  write each event before answering, or in batches (default blocking)`;

/** pflag's bool flags may be given bare (`--audit-log-compress`): such arguments as parseArgs reads them. */
export function auditFlagArgs(args: readonly string[]): string[] {
  return args.map((a) => (a === '--audit-log-compress' ? '--audit-log-compress=true' : a));
}

/** strconv.ParseBool, as pflag reads a bool flag's value. */
function bool(values: Record<string, unknown>, name: string): boolean | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw);
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new UsageError(
    `invalid argument "${text}" for "--${name}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`,
  );
}

function count(values: Record<string, unknown>, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new UsageError(`invalid argument "${String(raw)}" for "--${name}" flag`);
  if (n < 0) throw new UsageError(`--${name} ${n} can't be a negative number`);
  return n;
}

/** startControlPlane's `audit` as the flags ask for it; none when there is no policy (nothing is audited, as upstream). */
export function auditOptionsOf(values: Record<string, unknown>): { audit?: AuditOptions } {
  const format = String(values['audit-log-format'] ?? 'json');
  if (format !== 'json' && format !== 'legacy')
    throw new UsageError(`invalid audit log format ${format}, allowed formats are "legacy,json"`);
  const mode = String(values['audit-log-mode'] ?? 'blocking');
  if (mode !== 'blocking' && mode !== 'batch' && mode !== 'blocking-strict')
    throw new UsageError(`invalid audit log mode ${mode}, allowed modes are "batch,blocking,blocking-strict"`);
  const maxSize = count(values, 'audit-log-maxsize');
  const maxBackups = count(values, 'audit-log-maxbackup');
  const maxAge = count(values, 'audit-log-maxage');
  const compress = bool(values, 'audit-log-compress');
  const policyFile = values['audit-policy-file'] as string | undefined;
  const logPath = values['audit-log-path'] as string | undefined;
  if (!policyFile || !logPath) return {};
  const audit: AuditOptions = {
    policyFile,
    logPath,
    format,
    mode: mode === 'batch' ? 'batch' : 'blocking',
    ...(maxSize !== undefined ? { maxSize } : {}),
    ...(maxBackups !== undefined ? { maxBackups } : {}),
    ...(maxAge !== undefined ? { maxAge } : {}),
    ...(compress ? { compress } : {}),
  };
  return { audit };
}
