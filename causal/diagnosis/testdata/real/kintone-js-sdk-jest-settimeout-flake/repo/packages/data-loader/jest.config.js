module.exports = {
  rootDir: "src",
  clearMocks: true,
};
