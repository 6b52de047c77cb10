#!/usr/bin/env node
/**
 * Completes package-lock.json with the other platforms' optional native packages that npm left
 * out, so that a plain `npm ci` accepts the lock on every machine.
 *
 * npm leaves an optional dependency out of the lock when it cannot fetch its manifest (a registry
 * mirror that carries only some platforms' builds) or when it rewrites the lock over an existing
 * node_modules. `npm ci` then refuses the lock ("Missing: … from lock file"). The entries added
 * here carry the package's platform (os, cpu, libc), so npm skips them on every other platform
 * without fetching anything, exactly as it does for entries it wrote itself.
 *
 * Run after every change of dependencies: `npm install …` then `node scripts/complete-lock.js`.
 */
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const PLATFORM_SUFFIX =
  /-(android|darwin|freebsd|linux|openharmony|win32|sunos|aix|netbsd|openbsd)-(arm64|x64|ia32|arm|loong64|ppc64|riscv64|s390x)(?:-(gnu|musl|gnueabihf|musleabihf|eabi|msvc))?$/;
const LIBC = { gnu: 'glibc', gnueabihf: 'glibc', musl: 'musl', musleabihf: 'musl' };

function complete(lock) {
  const packages = lock.packages;
  const added = [];
  const unplaced = [];
  for (const [path, meta] of Object.entries(packages)) {
    for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
      if (packages[`${path}/node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
      const platform = PLATFORM_SUFFIX.exec(name);
      if (!platform) {
        unplaced.push(`${name} (optional dependency of ${path})`);
        continue;
      }
      const [, os, cpu, variant] = platform;
      packages[`node_modules/${name}`] = {
        version,
        cpu: [cpu],
        ...(meta.dev ? { dev: true } : {}),
        ...(LIBC[variant] ? { libc: [LIBC[variant]] } : {}),
        optional: true,
        os: [os],
      };
      added.push(name);
    }
  }
  const [root, ...rest] = Object.keys(packages);
  lock.packages = Object.fromEntries(
    [root, ...rest.sort((a, b) => a.localeCompare(b))].map((key) => [key, packages[key]]),
  );
  return { added, unplaced };
}

const file = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const { added, unplaced } = complete(lock);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lock: ${added.length} platform package(s) added\n`);
if (unplaced.length > 0) {
  process.stderr.write(
    `complete-lock: not a platform package, left alone:\n  ${unplaced.join('\n  ')}\n`,
  );
  process.exitCode = 1;
}
