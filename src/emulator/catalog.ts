/**
 * The emulator's fixed catalogues: the region table (province codes from the spec, a seeded
 * sample of depth-2 and depth-3 codes in the form of wire decision §5) and the enum codes of
 * ufoInterests and ufoBusinessTypes (wire decision §3). The service answers with its own
 * canonical names, so everything a response shows about a region comes from here.
 */
export interface Region {
  value: string;
  depth: 1 | 2 | 3;
  depth1Name: string;
  depth2Name?: string;
  depth3Name?: string;
  description: string;
}

const provinces: Record<string, string> = {
  A: 'Gangwon',
  B: 'Gyeonggi',
  C: 'South Gyeongsang',
  D: 'North Gyeongsang',
  E: 'Gwangju',
  F: 'Daegu',
  G: 'Daejeon',
  H: 'Busan',
  I: 'Seoul',
  J: 'Ulsan',
  K: 'Incheon',
  L: 'South Jeolla',
  M: 'North Jeolla',
  N: 'Jeju',
  O: 'South Chungcheong',
  P: 'North Chungcheong',
  Q: 'Sejong',
  U: 'Unknown',
  Z: 'Overseas',
};

/** Depth-2 names per province (code = letter + two digits, in order); depth-3 names per depth-2 code. */
const districts: Record<string, string[]> = {
  A: ['Chuncheon-si', 'Gangneung-si'],
  B: ['Suwon-si', 'Seongnam-si', 'Goyang-si'],
  C: ['Changwon-si', 'Gimhae-si'],
  D: ['Pohang-si', 'Gyeongju-si'],
  E: ['Buk-gu', 'Gwangsan-gu'],
  F: ['Suseong-gu', 'Dalseo-gu'],
  G: ['Yuseong-gu', 'Seo-gu'],
  H: ['Haeundae-gu', 'Busanjin-gu'],
  I: ['Jongno-gu', 'Jung-gu', 'Yongsan-gu', 'Gangnam-gu', 'Mapo-gu'],
  J: ['Nam-gu', 'Jung-gu'],
  K: ['Namdong-gu', 'Yeonsu-gu'],
  L: ['Mokpo-si', 'Yeosu-si'],
  M: ['Jeonju-si', 'Iksan-si'],
  N: ['Jeju-si', 'Seogwipo-si'],
  O: ['Cheonan-si', 'Asan-si'],
  P: ['Cheongju-si', 'Chungju-si'],
  Q: ['Sejong-si'],
};

const neighbourhoods: Record<string, string[]> = {
  B01: ['Ingye-dong', 'Maetan-dong'],
  H01: ['U-dong', 'Jung-dong'],
  I01: ['Sajik-dong', 'Samcheong-dong'],
  I04: ['Yeoksam-dong', 'Samseong-dong', 'Apgujeong-dong'],
  I05: ['Seogyo-dong', 'Hapjeong-dong'],
  N01: ['Ido-dong', 'Nohyeong-dong'],
};

const twoDigits = (n: number): string => String(n).padStart(2, '0');

function buildRegions(): Map<string, Region> {
  const regions = new Map<string, Region>();
  for (const [code, name] of Object.entries(provinces)) {
    regions.set(code, { value: code, depth: 1, depth1Name: name, description: name });
  }
  for (const [province, names] of Object.entries(districts)) {
    const depth1Name = provinces[province] ?? province;
    names.forEach((depth2Name, index) => {
      const value = `${province}${twoDigits(index + 1)}`;
      regions.set(value, { value, depth: 2, depth1Name, depth2Name, description: `${depth1Name} ${depth2Name}` });
      (neighbourhoods[value] ?? []).forEach((depth3Name, inner) => {
        const code = `${value}${twoDigits(inner + 1)}`;
        regions.set(code, {
          value: code,
          depth: 3,
          depth1Name,
          depth2Name,
          depth3Name,
          description: `${depth1Name} ${depth2Name} ${depth3Name}`,
        });
      });
    });
  }
  return regions;
}

export const regions: ReadonlyMap<string, Region> = buildRegions();

export const ufoInterests: readonly string[] = [
  'AUTOMOTIVE',
  'BEAUTY',
  'EDUCATION',
  'FASHION',
  'FINANCE',
  'FOOD',
  'GAME',
  'HEALTH',
  'MOVIES',
  'MUSIC',
  'PARENTING',
  'PETS',
  'REAL_ESTATE',
  'SPORTS',
  'TRAVEL',
];

export const ufoBusinessTypes: readonly string[] = [
  'AUTOMOTIVE',
  'BEAUTY',
  'EDUCATION',
  'ENTERTAINMENT',
  'FASHION',
  'FINANCE',
  'HEALTHCARE',
  'IT',
  'REAL_ESTATE',
  'RESTAURANT',
  'RETAIL',
  'TRAVEL',
];

export const ageBands: readonly string[] = ['15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65'];

/** Rule 3: with adult targeting, NOT_ALL must name exactly these bands. */
export const adultAgeBands: readonly string[] = ageBands.filter((band) => band !== '15');
