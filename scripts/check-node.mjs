// Fails early when npm scripts are not running on the pinned Node (the `node` devDependency).
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  console.error(
    `toolgate needs Node >= 22, but npm scripts run on ${process.version}; run "npm install" so the pinned node devDependency is used`,
  );
  process.exit(1);
}
console.log(`node ${process.version}`);
