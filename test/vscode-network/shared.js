// What the suite (extension host) and the person at the panel (ui.js) agree on.
'use strict';
module.exports = {
  /** The local server's answer: the proof that the command reached the host. */
  BODY: 'hello from the allowed host',
  /** The signal files in $E2E_OUT: the suite's host name, then "the second call is done". */
  HOST_FILE: 'host-name',
  SECOND_DONE: 'second-done',
};
