// Limits shared by the contracts, the domain and the docs.
export const TODO_MAX_ITEMS = 100;
export const TODO_MAX_CONTENT = 1000;
export const TITLE_MAX = 200;
export const NAME_MAX = 100;
export const PAGE_MAX = 100;
