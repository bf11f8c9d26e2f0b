// Limits shared by the contracts, the domain and the docs.
export const TODO_MAX_ITEMS = 100;
export const TODO_MAX_CONTENT = 1000;
export const TITLE_MAX = 200;
export const NAME_MAX = 100;
export const PAGE_MAX = 100;
export const TASK_SUBJECT_MAX = 200;
export const TASK_DESCRIPTION_MAX = 10_000;
export const TASK_ACTIVE_FORM_MAX = 200;
export const TASK_OWNER_MAX = 100;
/** oh-my-opencode's `repoURL` and `parentID` of a task. */
export const TASK_REPO_URL_MAX = 2000;
export const TASK_PARENT_ID_MAX = 200;
export const TASK_LIST_NAME_MAX = 100;
export const TASK_METADATA_MAX_BYTES = 10_000;
export const TASK_EDGES_MAX = 100;
export const TASK_LIST_PAGE_MAX = 1000;
export const IMPORT_FILES_MAX = 2000;
export const RUN_TASKS_MAX = 100;
export const RUN_TEXT_MAX = 1000;
export const RUN_NOTE_MAX = 120;
export const RUN_STEP_TEXT_MAX = 500;
export const RUN_NAME_MAX = 200;
export const CHANNEL_URL_MAX = 2000;
export const EXTERNAL_ID_MAX = 200;
/** Deepest nesting of objects and arrays accepted in any input. */
export const INPUT_DEPTH_MAX = 32;
/**
 * Storage bounds of what a mirror records from another runtime (Claude Code's TodoWrite and Task tools), which has no
 * limits of its own: past them the text is cut with a visible "…", never refused. Our own tools keep the limits above.
 */
export const MIRROR_TEXT_MAX = 10_000;
export const MIRROR_DESCRIPTION_MAX = 100_000;
export const MIRROR_METADATA_MAX = 100_000;
export const MIRROR_TODO_ITEMS_MAX = 1000;
export const MIRROR_EDGES_MAX = 1000;
/** A task's labels: at most this many, each 1 to `TASK_LABEL_MAX` characters. */
export const TASK_LABELS_MAX = 10;
export const TASK_LABEL_MAX = 32;
/** A comment on a task, and how many of the newest TaskGet shows. */
export const TASK_COMMENT_MAX = 4000;
export const TASK_COMMENTS_SHOWN = 5;
/** A full-text query, and the most hits one search answers. */
export const TASK_QUERY_MAX = 200;
export const TASK_SEARCH_PAGE_MAX = 50;
/** A person's note on a run's current task. */
export const RUN_PERSON_NOTE_MAX = 1000;
