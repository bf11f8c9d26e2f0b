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
export const TASK_LIST_NAME_MAX = 100;
export const TASK_METADATA_MAX_BYTES = 10_000;
export const TASK_EDGES_MAX = 100;
export const TASK_LIST_PAGE_MAX = 1000;
export const IMPORT_FILES_MAX = 2000;
