// Bundles the compiled command (dist/cli/main.js) into dist/bundle/ with esbuild: one chunk per lazily imported
// part (apiserver, controllers, scheduler, kubelet) instead of hundreds of modules, so that start-up does not
// spend most of its time resolving, reading and linking files. bin/wheelhouse.mjs runs it when it exists.
// Native and optional packages stay outside and load from node_modules as before.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const out = join('dist', 'bundle');
rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: [join('dist', 'cli', 'main.js')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'etcd3', 'bufferutil', 'utf-8-validate'],
  // ES module builds first where a package has both and no `exports` map: of the bundled packages that is only
  // @peculiar/x509 and the ASN.1 packages under it, whose ES builds esbuild can trim (a third smaller, and its
  // load at the first PKI generation ~20 ms shorter).
  mainFields: ['module', 'main'],
  // CommonJS packages inside an ES module bundle still call require().
  banner: {
    js: "import { createRequire as __wheelhouseRequire } from 'node:module';\nconst require = __wheelhouseRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// The generated API tables are read beside the module that reads them (src/api/generated-files.ts).
const tables = join('src', 'api', 'generated');
mkdirSync(join(out, 'generated'), { recursive: true });
for (const name of readdirSync(tables))
  if (name.endsWith('.json')) cpSync(join(tables, name), join(out, 'generated', name));
