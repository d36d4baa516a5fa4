export {};
//# sourceMappingURL=group.js.map