/**
 * A list answer of the audience service read whole, or an error: never a part of the list taken
 * for all of it. The spec shows `{content: [...]}`; a service built on Spring may answer one page
 * of several (Page: `content`, `last`, `first`, `totalPages`, `totalElements`, `number`, `size`,
 * `pageable {pageNumber, pageSize}`; PagedModel: `page {number, size, totalElements,
 * totalPages}`). A list read in part would plan the audiences it misses as new (duplicates) and
 * leave them out of a prune or an import, so:
 * - an answer whose `content` is missing, null or not a list is not whole;
 * - an answer with none of the paging fields, or one that says it is the first and last page, is
 *   whole;
 * - any other is followed page by page (`?page=N&size=S`) when it says its page number and size,
 *   until a page says it is the last; a page that does not advance (another number, the same ids
 *   again), totals that change on the way, more than MAX_LIST_PAGES pages, or a count that does
 *   not add up make the list not whole;
 * - an id listed twice in one answer is an error naming it.
 */
import { AppError } from '../errors.js';
import { snippet } from './api-error.js';

/** The code of a list that could not be read whole. */
export const LIST_INCOMPLETE = 'LIST_INCOMPLETE';
/** The code of a list answer that names one id twice. */
export const LIST_DUPLICATE_IDS = 'LIST_DUPLICATE_IDS';

/** The most pages followed: a service that never says "last" must not keep a command asking forever. */
export const MAX_LIST_PAGES = 1000;

/** One answer of a list as the wire schema lets it through: any field may hold anything. */
export interface ListAnswer<T> {
  content?: T[] | null | boolean | number | string | { [key: string]: unknown };
  last?: unknown;
  first?: unknown;
  totalPages?: unknown;
  totalElements?: unknown;
  number?: unknown;
  size?: unknown;
  page?: unknown;
  pageable?: unknown;
}

/** Which page to ask for: its number from 0 and the number of items per page. */
export interface PageQuery {
  page: number;
  size: number;
}

export interface ListRequest<T> {
  /** The request as errors show it: "GET /openapi/v4/targetings/audiences". */
  shown: string;
  /** What is listed: "audiences", "ad groups of audience 123". */
  what: string;
  /** The id of an item, and how an error names it: "audience 123". */
  idOf(item: T): string;
  nameOf(id: string): string;
  /** Asks for the list: without a query as the spec writes it, with one for a page of it. */
  ask(query?: PageQuery): Promise<ListAnswer<T>>;
}

/** What an answer says of its page, each field only when it says it. */
interface Paging {
  number?: number;
  size?: number;
  totalPages?: number;
  totalElements?: number;
  last?: boolean;
  first?: boolean;
}

/** The fields that make an answer a page of a list (null counts as absent). */
const PAGING_FIELDS = ['last', 'first', 'totalPages', 'totalElements', 'number', 'size', 'page', 'pageable'] as const;

const HINT =
  'the command stopped before changing or writing anything: a list the tool cannot read whole is never taken for the account (it would create audiences that exist, or miss some a prune deletes). Run it again (the account may have changed while it was read); if this goes on, check that ADS_API_URL is the audience API itself, and report the answer';

/** The items of the list, read whole (following its pages), or LIST_INCOMPLETE or LIST_DUPLICATE_IDS. */
export async function readWholeList<T>(request: ListRequest<T>): Promise<T[]> {
  const seen: string[] = [];
  const fail = (reason: string): AppError =>
    new AppError({
      code: LIST_INCOMPLETE,
      source: 'remote',
      summary: `the audience API did not answer the whole list of ${request.what} (${request.shown}): ${reason}`,
      // What each answer said, when there were several: one is in the summary already.
      ...(seen.length > 1 ? { detail: seen.join('\n') } : {}),
      hint: HINT,
    });
  const read = (answer: ListAnswer<T>, query: PageQuery | undefined): { items: T[]; paging: Paging | undefined } => {
    const at = query === undefined ? 'its answer' : `the answer to ?page=${query.page}&size=${query.size}`;
    const items = answer.content;
    if (!Array.isArray(items))
      throw fail(`${at} has ${items === undefined ? 'no content' : `content ${describe(items)}, not a list`}`);
    const paging = pagingOf(answer, (problem) => fail(`${at} ${problem}`));
    seen.push(
      `${query === undefined ? 'the first answer' : `?page=${query.page}&size=${query.size}`}: ${items.length} item${items.length === 1 ? '' : 's'}${paging === undefined ? '' : ` (${pagingText(paging)})`}`,
    );
    return { items, paging };
  };

  const addPage = pageCollector(request, fail);
  const first = read(await request.ask(), undefined);
  if (first.paging === undefined) return addPage(first.items, 0);
  const { number, size, totalPages } = first.paging;
  if (
    (number ?? 0) === 0 &&
    first.paging.first !== false &&
    isLastPage(first.paging, 0, first.items.length, first.items.length) === true
  ) {
    return checkedTotal(addPage(first.items, 0), first.paging, request, fail);
  }
  if (number === undefined || size === undefined || size < 1) {
    throw fail(
      `its answer is one page of several (${pagingText(first.paging)}) and does not say how to ask for the others: it gives no page number and size`,
    );
  }
  if (totalPages !== undefined && totalPages > MAX_LIST_PAGES)
    throw fail(`it has ${totalPages} pages, more than the ${MAX_LIST_PAGES} the tool follows`);

  const askPage = async (page: number): Promise<{ items: T[]; paging: Paging }> => {
    const query = { page, size };
    const answer = read(await request.ask(query), query);
    const at = `the answer to ?page=${page}&size=${size}`;
    if (answer.paging === undefined) throw fail(`${at} does not say which page it is`);
    if (answer.paging.number !== undefined && answer.paging.number !== page)
      throw fail(`${at} is page ${answer.paging.number}: the service does not follow the page asked for`);
    if (answer.paging.size !== undefined && answer.paging.size !== size)
      throw fail(`${at} has pages of ${answer.paging.size}, not ${size}`);
    for (const field of ['totalElements', 'totalPages'] as const) {
      const before = first.paging?.[field];
      const now = answer.paging[field];
      if (before !== undefined && now !== undefined && before !== now)
        throw fail(`the list changed while its pages were read (${field} ${before}, then ${now})`);
    }
    return { items: answer.items, paging: answer.paging };
  };

  let page = number === 0 ? { items: first.items, paging: first.paging } : await askPage(0);
  let items: T[] = [];
  for (let index = 0; ; index += 1) {
    items = addPage(page.items, index);
    const last = isLastPage(page.paging, index, page.items.length, items.length);
    if (last === undefined) throw fail(`page ${index} does not say whether it is the last`);
    if (last) break;
    if (page.items.length === 0) throw fail(`page ${index} is empty, and not the last`);
    if (index + 1 >= MAX_LIST_PAGES) throw fail(`it has more than the ${MAX_LIST_PAGES} pages the tool follows`);
    page = await askPage(index + 1);
  }
  return checkedTotal(items, page.paging, request, fail);
}

/**
 * Collects the items of the pages: `addPage` takes each page as it comes (`index`: its number)
 * and answers every item so far, each id once: an id twice in one answer is LIST_DUPLICATE_IDS; one on an earlier page
 * too is a list that moved (or a service that answers a page again), found as soon as that page comes.
 */
function pageCollector<T>(
  request: ListRequest<T>,
  fail: (reason: string) => AppError,
): (items: T[], index: number) => T[] {
  const pageOf = new Map<string, number>();
  const all: T[] = [];
  return (items, index) => {
    const repeated = new Set<string>();
    for (const item of items) {
      const id = request.idOf(item);
      const before = pageOf.get(id);
      if (before === index) repeated.add(id);
      else if (before !== undefined)
        throw fail(
          `${request.nameOf(id)} is on page ${before} and on page ${index}: the list moved while its pages were read`,
        );
      pageOf.set(id, index);
    }
    if (repeated.size > 0) throw duplicated(request, repeated);
    all.push(...items);
    return all;
  };
}

/** LIST_DUPLICATE_IDS, naming the ids listed twice. */
function duplicated<T>(request: ListRequest<T>, repeated: ReadonlySet<string>): AppError {
  return new AppError({
    code: LIST_DUPLICATE_IDS,
    source: 'remote',
    summary: `the audience API listed ${[...repeated].map((id) => request.nameOf(id)).join(', ')} more than once in one answer (${request.shown})`,
    hint: 'the command stopped before changing or writing anything: a list that repeats an id is not a list of the account the tool can trust. Run it again; if this goes on, report the answer',
  });
}

/** The items, when as many as the last page says the list holds. */
function checkedTotal<T>(items: T[], paging: Paging, request: ListRequest<T>, fail: (reason: string) => AppError): T[] {
  const total = paging.totalElements;
  if (total !== undefined && total !== items.length)
    throw fail(`it says it holds ${total} ${request.what} and listed ${items.length}`);
  return items;
}

/**
 * Whether a page is the last one (`index`: its number; `collected`: the items of it and those before), or undefined
 * when it does not say.
 */
function isLastPage(paging: Paging, index: number, length: number, collected: number): boolean | undefined {
  if (paging.last !== undefined) return paging.last;
  if (paging.totalPages !== undefined) return index + 1 >= paging.totalPages;
  if (paging.totalElements !== undefined) return collected >= paging.totalElements;
  if (paging.size !== undefined) return length < paging.size;
  return undefined;
}

/**
 * What an answer says of its page, or undefined when it has none of the paging fields. A field
 * it gives in a shape no paged answer has makes the page impossible to place: `problem`.
 */
function pagingOf(answer: ListAnswer<unknown>, problem: (text: string) => AppError): Paging | undefined {
  const fields: Record<string, unknown> = { ...answer };
  if (PAGING_FIELDS.every((field) => fields[field] === undefined || fields[field] === null)) return undefined;
  // PagedModel nests the numbers under `page`, Page repeats number and size in `pageable` ("INSTANCE" when unpaged).
  const nested = isRecord(answer.page) ? answer.page : {};
  const pageable = isRecord(answer.pageable) ? answer.pageable : {};
  const paging: Paging = {};
  const whole = (name: string, value: unknown): number | undefined => {
    if (value === undefined || value === null) return undefined;
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number === 'number' && Number.isSafeInteger(number) && number >= 0) return number;
    throw problem(`gives ${name} as ${describe(value)}, which is no count of pages or items`);
  };
  const flag = (name: string, value: unknown): boolean | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    throw problem(`gives ${name} as ${describe(value)}, which is neither true nor false`);
  };
  const set = <K extends keyof Paging>(key: K, value: Paging[K] | undefined): void => {
    if (value !== undefined) paging[key] = value;
  };
  set('number', whole('number', answer.number ?? nested['number'] ?? pageable['pageNumber']));
  set('size', whole('size', answer.size ?? nested['size'] ?? pageable['pageSize']));
  set('totalPages', whole('totalPages', answer.totalPages ?? nested['totalPages']));
  set('totalElements', whole('totalElements', answer.totalElements ?? nested['totalElements']));
  set('last', flag('last', answer.last));
  set('first', flag('first', answer.first));
  return paging;
}

/**
 * A page as people read it, counting pages from 0 as `?page=` does: "page 0, 3 pages, 2 per page, 5 in all, not the
 * last".
 */
function pagingText(paging: Paging): string {
  const parts: string[] = [];
  if (paging.number !== undefined) parts.push(`page ${paging.number}`);
  if (paging.totalPages !== undefined) parts.push(`${paging.totalPages} page${paging.totalPages === 1 ? '' : 's'}`);
  if (paging.size !== undefined) parts.push(`${paging.size} per page`);
  if (paging.totalElements !== undefined) parts.push(`${paging.totalElements} in all`);
  if (paging.last !== undefined) parts.push(paging.last ? 'the last' : 'not the last');
  if (paging.first === false) parts.push('not the first');
  return parts.join(', ');
}

/** A value an answer gave, as a message shows it: its JSON, cut short. */
function describe(value: unknown): string {
  return snippet(JSON.stringify(value) ?? String(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
