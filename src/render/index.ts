/**
 * Rendering: pure functions from plan data to text, Markdown and JSON. Renderers write to
 * no stream and choose no colour: the caller injects the style and prints the result.
 */
export { renderJson } from './json.js';
export { MARKDOWN_LIMIT, renderMarkdown } from './markdown.js';
export { ansiStyle, plainStyle, type Style } from './style.js';
export { renderText } from './text.js';
export { noChangesText } from './summary.js';
export { businessLine, renderCompany } from './business.js';
export { renderPlans } from './plans.js';
export { commentMarker, renderComment, renderErrorComment, type CommentContext, type ErrorReport } from './comment.js';
export { APPROVAL_PROMPT, applySummary, CANCELLED_TEXT, progressLine } from './apply.js';
