export {};
//# sourceMappingURL=record-types.js.map