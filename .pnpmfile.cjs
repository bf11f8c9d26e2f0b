// Builds native addons (better-sqlite3) against the running Node's own headers, so node-gyp downloads nothing.
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
  },
};
