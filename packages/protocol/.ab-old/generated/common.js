export {};
//# sourceMappingURL=common.js.map