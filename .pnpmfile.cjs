// pnpm hooks: native addons (better-sqlite3) build against the running Node's own headers, so node-gyp downloads
// nothing; and a packed package (the SDK's tarball) carries no devDependencies or development scripts.
const fs = require('node:fs');
const path = require('node:path');

module.exports = {
  hooks: {
    updateConfig(config) {
      const prefix = path.dirname(path.dirname(process.execPath));
      if (fs.existsSync(path.join(prefix, 'include', 'node', 'common.gypi'))) {
        return { ...config, extraEnv: { ...(config.extraEnv ?? {}), npm_config_nodedir: prefix } };
      }
      return config;
    },
    // Workspace-only dev dependencies (`@agent-tasks/core: workspace:*` is bundled into the SDK) mean nothing to
    // an installer; the scripts build and test from sources the tarball does not ship.
    beforePacking(pkg) {
      const { devDependencies: _devDependencies, scripts: _scripts, ...packed } = pkg;
      return packed;
    },
  },
};
