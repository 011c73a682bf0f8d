// Copies the data files the compiled code reads at run time (the generated API tables) into dist/.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const from = join('src', 'api', 'generated');
const to = join('dist', 'api', 'generated');
mkdirSync(to, { recursive: true });
for (const name of readdirSync(from)) if (name.endsWith('.json')) cpSync(join(from, name), join(to, name));
