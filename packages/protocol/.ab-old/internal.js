export * from './index.js';
//# sourceMappingURL=internal.js.map