/**
 * How the two list operations (1: the audiences, 7: the ad groups of an audience) answer. The
 * spec shows `{content: [...]}` only; a service built on Spring may page its lists, and answers
 * seen in the wild hold a null or missing content. The emulator answers each shape on request
 * (SPEC.md, Lists), so a client can be tried against all of them. Written from the spec and
 * Spring's documented Page and PagedModel shapes alone: no client code.
 */
import { detailCodes as codes, invalid } from './http-error.js';

/**
 * - `whole`: `{content: [...]}`, the whole list (the spec's shape; page parameters ignored);
 * - `null-content`, `missing-content`: `{content: null}`, `{}`;
 * - `paged`: Spring's Page of `?page=N&size=S` (from 0; `pageSize` when not asked), with
 *   `content`, `pageable`, `last`, `totalPages`, `totalElements`, `size`, `number`, `sort`,
 *   `first`, `numberOfElements`, `empty`;
 * - `paged-model`: the same page as Spring's PagedModel writes it: `content` and
 *   `page: {size, number, totalElements, totalPages}`, nothing else;
 * - `paged-unfollowable`: the same page with only `content`, `last`, `totalPages` and
 *   `totalElements`: nothing says how to ask for another;
 * - `duplicate-ids`: the whole list with its first item twice.
 */
export const listShapes = [
  'whole',
  'null-content',
  'missing-content',
  'paged',
  'paged-model',
  'paged-unfollowable',
  'duplicate-ids',
] as const;
export type ListShape = (typeof listShapes)[number];

/** The page size of a paged list when the request asks for none (Spring's default). */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest page answered: a larger `size` is cut to it, as Spring's `max-page-size` does. */
export const MAX_PAGE_SIZE = 2000;

/** The page parameters of a list request, as sent (null: not sent). */
export interface PageParams {
  page: string | null;
  size: string | null;
}

/**
 * The answer of a list operation whose items are `items`, in the shape `shape`; `params` are read only by a paged
 * shape.
 */
export function shapeList(
  items: readonly unknown[],
  shape: ListShape,
  pageSize: number,
  params: () => PageParams,
): unknown {
  switch (shape) {
    case 'whole':
      return { content: items };
    case 'null-content':
      return { content: null };
    case 'missing-content':
      return {};
    case 'duplicate-ids':
      return { content: items.length === 0 ? [] : [items[0], ...items] };
    case 'paged':
    case 'paged-model':
    case 'paged-unfollowable': {
      const { page: number, size } = params();
      const page = pageOf(
        items,
        pageParam(number, 'page') ?? 0,
        Math.min(pageParam(size, 'size') ?? pageSize, MAX_PAGE_SIZE),
      );
      if (shape === 'paged-unfollowable')
        return {
          content: page.content,
          last: page.last,
          totalPages: page.totalPages,
          totalElements: page.totalElements,
        };
      if (shape === 'paged-model')
        return {
          content: page.content,
          page: {
            size: page.size,
            number: page.number,
            totalElements: page.totalElements,
            totalPages: page.totalPages,
          },
        };
      return page;
    }
  }
}

/** One page as Spring's Page writes it (Jackson's view of PageImpl). */
function pageOf(items: readonly unknown[], number: number, size: number) {
  const content = items.slice(number * size, (number + 1) * size);
  const totalPages = Math.ceil(items.length / size);
  const sort = { empty: true, sorted: false, unsorted: true };
  return {
    content,
    pageable: { pageNumber: number, pageSize: size, sort, offset: number * size, paged: true, unpaged: false },
    last: number + 1 >= totalPages,
    totalPages,
    totalElements: items.length,
    size,
    number,
    sort,
    first: number === 0,
    numberOfElements: content.length,
    empty: content.length === 0,
  };
}

/** `page` (from 0) or `size` (from 1): digits, or 400 (1006). */
function pageParam(text: string | null, name: 'page' | 'size'): number | undefined {
  if (text === null) return undefined;
  const least = name === 'page' ? 0 : 1;
  if (!/^\d{1,9}$/.test(text) || Number(text) < least)
    throw invalid(codes.badQuery, `query parameter '${name}' must be a whole number from ${least}, got '${text}'`);
  return Number(text);
}
