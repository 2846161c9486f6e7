import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The end-to-end tests build and spawn the CLI; give them room on a 2-core machine.
    testTimeout: 60_000,
    // Two files at a time even on 2 cores (vitest's default there is 1): the end-to-end files mostly
    // wait on the processes they spawn (the suite: 753 s one file at a time, 613 s two at a time).
    maxWorkers: 2,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
