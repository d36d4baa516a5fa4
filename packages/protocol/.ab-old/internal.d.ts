export * from './index.js';
//# sourceMappingURL=internal.d.ts.map