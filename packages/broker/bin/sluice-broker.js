#!/usr/bin/env -S node --no-memory-reducer
// The sluice-broker command. A committed launcher, so pnpm can link the bin on a fresh clone before
// the build has made dist/ (a bin pointing into dist/ warns "Failed to create bin" there).
import '../dist/main.js'
