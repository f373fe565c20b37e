/**
 * Xero's Organisation.Timezone is a Windows time-zone id written in capitals
 * without spaces (AUSEASTERNSTANDARDTIME). The common ones map to IANA zones;
 * any other leaves the organisation's own time zone unchanged.
 */
const XERO_TIMEZONES: Readonly<Record<string, string>> = {
  // Australia and New Zealand, Pacific
  AUSEASTERNSTANDARDTIME: 'Australia/Sydney',
  EAUSTRALIASTANDARDTIME: 'Australia/Brisbane',
  CENAUSTRALIASTANDARDTIME: 'Australia/Adelaide',
  AUSCENTRALSTANDARDTIME: 'Australia/Darwin',
  WAUSTRALIASTANDARDTIME: 'Australia/Perth',
  TASMANIASTANDARDTIME: 'Australia/Hobart',
  LORDHOWESTANDARDTIME: 'Australia/Lord_Howe',
  NEWZEALANDSTANDARDTIME: 'Pacific/Auckland',
  CHATHAMISLANDSSTANDARDTIME: 'Pacific/Chatham',
  FIJISTANDARDTIME: 'Pacific/Fiji',
  TONGASTANDARDTIME: 'Pacific/Tongatapu',
  SAMOASTANDARDTIME: 'Pacific/Apia',
  WESTPACIFICSTANDARDTIME: 'Pacific/Port_Moresby',
  HAWAIIANSTANDARDTIME: 'Pacific/Honolulu',
  // Europe and Africa
  GMTSTANDARDTIME: 'Europe/London',
  GREENWICHSTANDARDTIME: 'Atlantic/Reykjavik',
  UTC: 'UTC',
  WEUROPESTANDARDTIME: 'Europe/Berlin',
  ROMANCESTANDARDTIME: 'Europe/Paris',
  CENTRALEUROPESTANDARDTIME: 'Europe/Budapest',
  CENTRALEUROPEANSTANDARDTIME: 'Europe/Warsaw',
  GTBSTANDARDTIME: 'Europe/Bucharest',
  FLESTANDARDTIME: 'Europe/Kiev',
  EEUROPESTANDARDTIME: 'Europe/Chisinau',
  RUSSIANSTANDARDTIME: 'Europe/Moscow',
  SOUTHAFRICASTANDARDTIME: 'Africa/Johannesburg',
  EAFRICASTANDARDTIME: 'Africa/Nairobi',
  WCENTRALAFRICASTANDARDTIME: 'Africa/Lagos',
  EGYPTSTANDARDTIME: 'Africa/Cairo',
  // Asia and the Middle East
  ARABIANSTANDARDTIME: 'Asia/Dubai',
  ARABSTANDARDTIME: 'Asia/Riyadh',
  ISRAELSTANDARDTIME: 'Asia/Jerusalem',
  INDIASTANDARDTIME: 'Asia/Kolkata',
  PAKISTANSTANDARDTIME: 'Asia/Karachi',
  SEASIASTANDARDTIME: 'Asia/Bangkok',
  SINGAPORESTANDARDTIME: 'Asia/Singapore',
  CHINASTANDARDTIME: 'Asia/Shanghai',
  TAIPEISTANDARDTIME: 'Asia/Taipei',
  TOKYOSTANDARDTIME: 'Asia/Tokyo',
  KOREASTANDARDTIME: 'Asia/Seoul',
  // The Americas
  EASTERNSTANDARDTIME: 'America/New_York',
  CENTRALSTANDARDTIME: 'America/Chicago',
  MOUNTAINSTANDARDTIME: 'America/Denver',
  USMOUNTAINSTANDARDTIME: 'America/Phoenix',
  PACIFICSTANDARDTIME: 'America/Los_Angeles',
  ALASKANSTANDARDTIME: 'America/Anchorage',
  ATLANTICSTANDARDTIME: 'America/Halifax',
  NEWFOUNDLANDSTANDARDTIME: 'America/St_Johns',
  CANADACENTRALSTANDARDTIME: 'America/Regina',
  CENTRALSTANDARDTIMEMEXICO: 'America/Mexico_City',
  SAPACIFICSTANDARDTIME: 'America/Bogota',
  SAEASTERNSTANDARDTIME: 'America/Cayenne',
  ESOUTHAMERICASTANDARDTIME: 'America/Sao_Paulo',
  ARGENTINASTANDARDTIME: 'America/Buenos_Aires',
  PACIFICSASTANDARDTIME: 'America/Santiago',
};

/** The IANA zone of a Xero Timezone code, or null when it is not a known one. */
export function ianaFromXeroTimezone(code: string | null | undefined): string | null {
  if (!code) return null;
  const key = code.toUpperCase().replace(/[^A-Z]/g, '');
  return XERO_TIMEZONES[key] ?? null;
}
