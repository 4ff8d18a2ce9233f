// What the suite (extension host) and the person at the panel (ui.js) agree on.
'use strict';
module.exports = {
  /** The watcher the agent starts in the background: a line every half second, with a marker /proc can find. */
  script: (marker) => `import time\nfor i in range(10000):\n    print("tick", i, "${marker}", flush=True)\n    time.sleep(0.5)\n`,
  /** Signal files in $E2E_OUT: the suite started it (its id), the person pressed Stop. */
  STARTED: 'started',
  STOPPED: 'stopped-by-ui',
};
