// ISO 4217 currency codes, as the POST /events currency, a stage's sale currency and an organisation's currency
// take them. Node's list (ICU, Intl.supportedValuesOf) leaves out codes of ISO 4217's current list: the Venezuelan
// bolívar digital (VED, in circulation since 2021), the funds codes (the Chilean UF CLF, BOV, CHE, CHW, COU, MXV,
// USN, UYI, UYW), the precious metals and the bond-market units. XTS (reserved for testing) and XXX (no currency
// involved) are codes too, but no value is counted in them: they stay refused.
const LEFT_OUT_BY_ICU = ['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW', 'VED', 'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XPD', 'XPT', 'XUA'];
const NOT_MONEY = new Set(['XTS', 'XXX']);

const CODES = new Set([...Intl.supportedValuesOf('currency'), ...LEFT_OUT_BY_ICU].filter((code) => !NOT_MONEY.has(code)));

/** Whether an upper-case code is an ISO 4217 currency. */
export const isCurrencyCode = (code: string): boolean => CODES.has(code);
