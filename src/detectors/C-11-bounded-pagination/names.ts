/**
 * C-11 (source parts, JavaScript/TypeScript and Python) — the names that tell a list or search tool, its
 * page-size and cursor arguments, the cursor it returns and a fixed bound it passes on.
 */
export const LIST_NAME = /^(?:list|search)(?:[_-]|[A-Z])/;
export const SIZE_ARG = /^(?:limit|page_?size|per_?page|max_?results|max_?items|max_?count|top_?k|count|num_?results|page_?limit|size|first|take)$/i;
export const CURSOR_ARG = /^(?:cursor|page_?token|after|starting_?after|continuation_?token|next_?token|start_?cursor)$/i;
export const NEXT_CURSOR = /^(?:next_?cursor|next_?page_?token|next_?token|cursor|continuation_?token|end_?cursor|next_?page_?cursor)$/i;
export const BOUND_PROP = /^(?:limit|take|page_?size|per_?page|max_?results|page_?limit|top_?k|first|size)$/i;
