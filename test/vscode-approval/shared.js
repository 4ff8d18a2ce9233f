// What the suite (extension host) calls and the driver (browser) expects to see, in one place.
'use strict';
module.exports = {
  APPROVE_WORD: 'approved-by-click',
  DENY_WORD: 'deny-me',
  DENY_REASON: 'Not in this repository, please use the test script.',
  SECOND_CARD_WORD: 'second card',
  ALWAYS_WORD: 'always-me',
  TIMED_WORD: 'timed-me',
  CLOSE_WORD: 'close-the-panel',
  REVOKED_REASON: 'asked again after the revocation',
  NOTES: 'notes.txt',
  /** Undo from the history: a file that is not UTF-8, has CRLF line ends and no final newline, overwritten by writeFile. */
  RAW: 'raw-bytes.txt',
  RAW_BYTES: [0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0x0d, 0x0a, 0x6c, 0x69, 0x6e, 0x65, 0x0d, 0x0a, 0x09, 0x6c, 0x61, 0x73, 0x74],
  RAW_NEW: 'written by the agent',
  NOTES_BEFORE: 'alpha\nbeta\ngamma\ndelta\n',
  EDIT_SCRIPT: 's/beta/BETA (approved)/',
  NOTES_AFTER: 'alpha\nBETA (approved)\ngamma\ndelta\n',
  DENIED_EDIT_SCRIPT: '/gamma/d',
  EDIT_DENY_REASON: 'keep gamma',
  /** Batch approval per kind: two commands approved with one confirmed batch, the file change pending beside them. */
  BATCH_WORDS: ['batch-one', 'batch-two'],
  BATCH_EDIT_SCRIPT: 's/delta/DELTA (batch)/',
  BATCH_DENY_REASON: 'not part of the batch',
  /** The diff rows the editFile card must show: [kind, old line, new line, sign, text] or [kind, text]. */
  EDIT_ROWS: [
    ['file', '--- a/notes.txt'],
    ['file', '+++ b/notes.txt'],
    ['hunk', '@@ -1,4 +1,4 @@'],
    ['ctx', '1', '1', ' ', 'alpha'],
    ['del', '2', '', '−', 'beta'],
    ['add', '', '2', '+', 'BETA (approved)'],
    ['ctx', '3', '3', ' ', 'gamma'],
    ['ctx', '4', '4', ' ', 'delta'],
  ],
  DENIED_ROWS: [
    ['file', '--- a/notes.txt'],
    ['file', '+++ b/notes.txt'],
    ['hunk', '@@ -1,4 +1,3 @@'],
    ['ctx', '1', '1', ' ', 'alpha'],
    ['ctx', '2', '2', ' ', 'BETA (approved)'],
    ['del', '3', '', '−', 'gamma'],
    ['ctx', '4', '3', ' ', 'delta'],
  ],
  /** effects.sh: command preview (copy-on-write view), Apply, Discard, Undo of a command, a conflict. */
  EFFECTS: {
    /** The committed file the commands rewrite, before and after the first rewrite. */
    FILE: 'tracked.txt',
    BEFORE: 'alpha\nbeta\ngamma\n',
    REWRITE: ['sh', '-c', 'sed s/beta/BETA/ tracked.txt > tracked.tmp && mv tracked.tmp tracked.txt'],
    AFTER: 'alpha\nBETA\ngamma\n',
    /** The rewrite's effect card, as the diff rows show it. */
    REWRITE_ROWS: [
      ['file', '--- a/tracked.txt'],
      ['file', '+++ b/tracked.txt'],
      ['hunk', '@@ -1,3 +1,3 @@'],
      ['ctx', '1', '1', ' ', 'alpha'],
      ['del', '2', '', '−', 'beta'],
      ['add', '', '2', '+', 'BETA'],
      ['ctx', '3', '3', ' ', 'gamma'],
    ],
    TOUCH: ['touch', 'new.txt'],
    /** Discarded: it changes the tracked file, makes a file and removes one; the folder must stay byte-identical. */
    DISCARD: ['sh', '-c', 'echo delta >> tracked.txt; touch junk.txt; rm -f new.txt'],
    DISCARD_REASON: 'not these changes',
    /** Applied after the person edited the file meanwhile: a conflict, nothing written. */
    CONFLICT: ['sh', '-c', 'echo from-the-command >> tracked.txt'],
    PERSON_EDIT: 'alpha\nedited by the person meanwhile\n',
  },
  /** defaults.sh: VS Code's defaults, a git repository, a miss, a commit, an edited "Always allow" rule. */
  DEFAULTS: {
    /** The person's identity in the test HOME's ~/.gitconfig: the agent's commits must carry it. */
    NAME: 'Ada Example',
    EMAIL: 'ada@example.test',
    /** The committed file the agent edits, before and after its two edits. */
    FILE: 'greeting.txt',
    BEFORE: 'Hello\n',
    EDIT_SCRIPT: 's/Hello/Hello, world/',
    AFTER: 'Hello, world\n',
    SECOND_EDIT_SCRIPT: 's/world/everyone/',
    SECOND_AFTER: 'Hello, everyone\n',
    FIRST_COMMIT: 'Greet the world',
    /** A file the agent creates, then stages with the command that brings up the "Always allow" card. */
    NOTES: 'NOTES.md',
    NOTES_TEXT: 'Greetings are short.',
    SECOND_COMMIT: 'Greet everyone, with notes',
    /** The notice a miss shows on its card (media/approval.js). */
    MISS_NOTICE: 'Not on your allowlist: "git". Approving runs it this time; "Always allow" saves a rule.',
    /** Typed first: it does not cover `git add NOTES.md`, so the extension refuses to save it and the card stays. */
    WRONG_RULE: 'git commit *',
    /** The edited prefix rule saved with "Always allow" (the card offers `git add NOTES.md` and `git add NOTES.md *`). */
    RULE: 'git add *',
  },
};
