import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import {
  LIST_DUPLICATE_IDS,
  LIST_INCOMPLETE,
  MAX_LIST_PAGES,
  readWholeList,
  type ListAnswer,
  type PageQuery,
} from './whole-list.js';

interface Item {
  id: number;
}

/**
 * A list request whose answers `answer` gives (the query it was asked with: undefined for the first); every query is
 * kept.
 */
function listOf(answer: (query: PageQuery | undefined) => ListAnswer<Item>) {
  const asked: Array<PageQuery | undefined> = [];
  const request = {
    shown: 'GET /openapi/v4/targetings/audiences',
    what: 'audiences',
    idOf: (item: Item) => String(item.id),
    nameOf: (id: string) => `audience ${id}`,
    ask: async (query?: PageQuery) => {
      asked.push(query);
      return answer(query);
    },
  };
  return { read: () => readWholeList(request), asked };
}

const items = (...ids: number[]): Item[] => ids.map((id) => ({ id }));

/** The error a read ends with (it must end with one). */
async function failure(read: Promise<unknown>): Promise<AppError> {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** Page `number` of `all` in pages of `size`, as each variant of a paged answer writes it. */
const variants = {
  page: (all: Item[], number: number, size: number): ListAnswer<Item> => {
    const totalPages = Math.ceil(all.length / size);
    return {
      content: all.slice(number * size, (number + 1) * size),
      pageable: { pageNumber: number, pageSize: size, offset: number * size, paged: true },
      last: number + 1 >= totalPages,
      totalPages,
      totalElements: all.length,
      size,
      number,
      first: number === 0,
    };
  },
  pagedModel: (all: Item[], number: number, size: number): ListAnswer<Item> => ({
    content: all.slice(number * size, (number + 1) * size),
    page: { size, number, totalElements: all.length, totalPages: Math.ceil(all.length / size) },
  }),
  pageable: (all: Item[], number: number, size: number): ListAnswer<Item> => ({
    content: all.slice(number * size, (number + 1) * size),
    pageable: { pageNumber: number, pageSize: size },
    last: (number + 1) * size >= all.length,
  }),
  slice: (all: Item[], number: number, size: number): ListAnswer<Item> => ({
    content: all.slice(number * size, (number + 1) * size),
    number,
    size,
  }),
};

describe('a list read whole', () => {
  it('reads every item of a paged list in order, whichever paged shape the service answers, asking each page once', () => {
    fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 1e9 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(...(Object.keys(variants) as Array<keyof typeof variants>)),
        async (ids, size, variant) => {
          const all = items(...ids);
          const list = listOf((query) => variants[variant](all, query?.page ?? 0, query?.size ?? size));
          expect(await list.read()).toEqual(all);
          const pages = list.asked.map((query) => query?.page ?? 0);
          expect(new Set(pages).size).toBe(pages.length);
          expect(list.asked.every((query) => query === undefined || query.size === size)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes an answer without paging fields, or one that says it is the only page, as the whole list', async () => {
    expect(await listOf(() => ({ content: items(1, 2) })).read()).toEqual(items(1, 2));
    // Spring's unpaged Page writes its Pageable as "INSTANCE".
    expect(
      await listOf(() => ({
        content: items(3),
        pageable: 'INSTANCE',
        last: true,
        totalPages: 1,
        totalElements: 1,
        number: 0,
        size: 1,
        first: true,
      })).read(),
    ).toEqual(items(3));
    expect(
      await listOf(() => ({
        content: [],
        last: true,
        totalPages: 0,
        totalElements: 0,
        number: 0,
        size: 20,
        first: true,
      })).read(),
    ).toEqual([]);
  });

  it.each([
    ['null', { content: null }, 'its answer has content null, not a list'],
    ['missing', {}, 'its answer has no content'],
    ['an object', { content: { id: 1 } }, 'its answer has content {"id":1}, not a list'],
    ['a string', { content: '1,2' }, 'its answer has content "1,2", not a list'],
  ])('refuses a list whose content is %s', async (_, answer, reason) => {
    const error = await failure(listOf(() => answer as ListAnswer<Item>).read());
    expect(error.code).toBe(LIST_INCOMPLETE);
    expect(error.summary).toBe(
      `the audience API did not answer the whole list of audiences (GET /openapi/v4/targetings/audiences): ${reason}`,
    );
    expect(error.hint).toContain('stopped before changing or writing anything');
  });

  it('refuses one page of several that does not say how to ask for the next, asking nothing more', async () => {
    const list = listOf(() => ({ content: items(1, 2), last: false, totalPages: 2, totalElements: 5 }));
    const error = await failure(list.read());
    expect(error.code).toBe(LIST_INCOMPLETE);
    expect(error.summary).toContain(
      'its answer is one page of several (2 pages, 5 in all, not the last) and does not say how to ask for the others',
    );
    expect(list.asked).toEqual([undefined]);
  });

  it('names the ids an answer lists twice', async () => {
    const error = await failure(listOf(() => ({ content: items(1, 2, 1, 3, 3) })).read());
    expect(error.code).toBe(LIST_DUPLICATE_IDS);
    expect(error.summary).toBe(
      'the audience API listed audience 1, audience 3 more than once in one answer (GET /openapi/v4/targetings/audiences)',
    );
  });

  it('refuses a service that answers page 0 whatever page is asked for, after one more request', async () => {
    const list = listOf(() => variants.page(items(1, 2, 3), 0, 2));
    const error = await failure(list.read());
    expect(error.summary).toContain(
      'the answer to ?page=1&size=2 is page 0: the service does not follow the page asked for',
    );
    expect(error.detail).toBe(
      'the first answer: 2 items (page 0, 2 pages, 2 per page, 3 in all, not the last)\n?page=1&size=2: 2 items (page 0, 2 pages, 2 per page, 3 in all, not the last)',
    );
    expect(list.asked).toHaveLength(2);
  });

  it('refuses the same items on two pages (the list moved), and a page that does not say which it is', async () => {
    const moved = listOf((query) => ({
      content: query === undefined ? items(1, 2) : items(2, 3),
      last: query !== undefined,
      number: query?.page ?? 0,
      size: 2,
    }));
    expect((await failure(moved.read())).summary).toContain(
      'audience 2 is on page 0 and on page 1: the list moved while its pages were read',
    );
    // A service that answers the first page again without saying its number is found out at once, not after
    // MAX_LIST_PAGES pages.
    const stuck = listOf((query) => ({
      content: items(1, 2),
      last: false,
      size: 2,
      ...(query === undefined ? { number: 0 } : {}),
    }));
    expect((await failure(stuck.read())).summary).toContain('audience 1 is on page 0 and on page 1');
    expect(stuck.asked).toHaveLength(2);
    const unnumbered = listOf((query) =>
      query === undefined ? variants.slice(items(1, 2, 3), 0, 2) : { content: items(3) },
    );
    expect((await failure(unnumbered.read())).summary).toContain(
      'the answer to ?page=1&size=2 does not say which page it is',
    );
  });

  it('refuses totals that change while the pages are read, and a count that does not add up', async () => {
    const all = items(1, 2, 3, 4, 5);
    const growing = listOf((query) => ({
      ...variants.page(all, query?.page ?? 0, 2),
      ...(query ? { totalElements: 6 } : {}),
    }));
    expect((await failure(growing.read())).summary).toContain(
      'the list changed while its pages were read (totalElements 5, then 6)',
    );
    const short = listOf(() => ({ content: items(1, 2), last: true, number: 0, size: 20, totalElements: 3 }));
    expect((await failure(short.read())).summary).toContain('it says it holds 3 audiences and listed 2');
  });

  it('refuses a page field it cannot read, rather than guess', async () => {
    const error = await failure(listOf(() => ({ content: items(1), last: 'no' })).read());
    expect(error.summary).toContain('its answer gives last as "no", which is neither true nor false');
  });

  it('follows at most MAX_LIST_PAGES pages of a list that never ends, and says so', async () => {
    const endless = listOf((query) => ({ content: items((query?.page ?? 0) + 1), number: query?.page ?? 0, size: 1 }));
    const error = await failure(endless.read());
    expect(error.summary).toContain(`it has more than the ${MAX_LIST_PAGES} pages the tool follows`);
    expect(endless.asked).toHaveLength(MAX_LIST_PAGES);
    const huge = listOf(() => ({ content: items(1), number: 0, size: 1, totalPages: MAX_LIST_PAGES + 1, last: false }));
    expect((await failure(huge.read())).summary).toContain(`it has ${MAX_LIST_PAGES + 1} pages`);
    expect(huge.asked).toHaveLength(1);
  });

  it('asks from page 0 when the first answer is a later page', async () => {
    const all = items(1, 2, 3);
    const list = listOf((query) => variants.page(all, query?.page ?? 1, 2));
    expect(await list.read()).toEqual(all);
    expect(list.asked).toEqual([undefined, { page: 0, size: 2 }, { page: 1, size: 2 }]);
  });
});
