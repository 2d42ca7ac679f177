#!/usr/bin/env node
// The `pathgate` binary: the compiled CLI (built by `npm run build`, which `npm ci` runs via prepare).
import '../build/app/cli.js';
