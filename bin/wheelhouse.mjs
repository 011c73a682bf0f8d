#!/usr/bin/env node
// The wheelhouse command. In a source checkout it runs the TypeScript directly (through tsx); an installed,
// compiled package runs dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
// The bundled build starts faster (scripts/bundle.mjs); the plain compiled one serves when it is absent.
const bundled = join(root, 'dist', 'bundle', 'main.js');
let entry = existsSync(bundled) ? bundled : join(root, 'dist', 'cli', 'main.js');
if (existsSync(source) && !process.env.WHEELHOUSE_COMPILED) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = source;
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
