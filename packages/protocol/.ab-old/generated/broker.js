export {};
//# sourceMappingURL=broker.js.map