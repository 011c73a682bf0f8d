import type { RequestContext } from '../context.js';
import { writeText } from '../respond.js';

/** A named health check; throws (or rejects) when unhealthy. */
export interface HealthCheck {
  name: string;
  check(): void | Promise<void>;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

/**
 * /healthz, /livez and /readyz as upstream serves them: "ok" or a 500 listing the failed checks; `?verbose` lists
 * every check as "[+]name ok" / "[-]name failed: reason withheld"; `?exclude=name` skips checks;
 * /<endpoint>/<check> runs one check.
 */
export class HealthChecks {
  private readonly checks: Record<HealthEndpoint, HealthCheck[]> = { healthz: [], livez: [], readyz: [] };

  add(endpoints: HealthEndpoint[], check: HealthCheck): void {
    for (const e of endpoints) this.checks[e].push(check);
  }

  /** Answers a request for /<endpoint> or /<endpoint>/<check>; false when the path is not a health path. */
  async serve(ctx: RequestContext): Promise<boolean> {
    const [endpoint, ...rest] = ctx.url.pathname.split('/').filter(Boolean);
    if (!endpoint || !(endpoint in this.checks)) return false;
    const checks = this.checks[endpoint as HealthEndpoint];
    // A check's name may have slashes of its own (poststarthook/rbac/bootstrap-roles).
    const checkName = rest.length > 0 ? rest.join('/') : undefined;
    if (checkName !== undefined) {
      const one = checks.find((c) => c.name === checkName);
      if (!one) return false;
      const failure = await run(one);
      if (failure === undefined) writeText(ctx.res, 200, 'ok');
      else writeText(ctx.res, 500, `internal server error: ${failure}\n`);
      return true;
    }
    const excluded = new Set(ctx.url.searchParams.getAll('exclude'));
    const lines: string[] = [];
    let failed = false;
    for (const c of checks) {
      if (excluded.has(c.name)) {
        lines.push(`[+]${c.name} excluded: ok`);
        continue;
      }
      const failure = await run(c);
      if (failure === undefined) lines.push(`[+]${c.name} ok`);
      else {
        failed = true;
        lines.push(`[-]${c.name} failed: reason withheld`);
      }
    }
    for (const name of excluded) {
      if (!checks.some((c) => c.name === name))
        lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
    }
    const verbose = ctx.url.searchParams.has('verbose');
    if (failed) {
      writeText(ctx.res, 500, `${lines.join('\n')}\n${endpoint} check failed\n`);
    } else if (verbose) {
      writeText(ctx.res, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
    } else {
      writeText(ctx.res, 200, 'ok');
    }
    return true;
  }
}

async function run(c: HealthCheck): Promise<string | undefined> {
  try {
    await c.check();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
