// Human messages for every error code, in Polish (default) and English.
import type { ErrorCode } from '../../commands/shared/errors.ts';

export type Language = 'pl' | 'en';

export const MESSAGES: Record<ErrorCode, Record<Language, string>> = {
  unauthorized: { pl: 'Brak klucza API, zły format lub nieznany klucz.', en: 'Missing API key, wrong format or unknown key.' },
  key_revoked: { pl: 'Klucz API został unieważniony.', en: 'The API key has been revoked.' },
  key_expired: { pl: 'Klucz API wygasł.', en: 'The API key has expired.' },
  insufficient_scope: { pl: 'Klucz nie ma wymaganego uprawnienia.', en: 'The key lacks the required scope.' },
  rate_limited: { pl: 'Przekroczono limit zapytań; spróbuj ponownie za chwilę.', en: 'Rate limit exceeded; retry after the indicated time.' },
  invalid_json: { pl: 'Treść nie jest poprawnym JSON-em lub zawiera nieznane pole.', en: 'The body is not valid JSON or contains an unknown field.' },
  validation_error: { pl: 'Pole lub parametr ma niepoprawną wartość.', en: 'A field or parameter has an invalid value.' },
  invalid_cursor: { pl: 'Kursor nie pochodzi z poprzedniej strony tej samej listy.', en: 'The cursor is not from the previous page of the same list.' },
  not_found: { pl: 'Nie znaleziono takiego rekordu w organizacji.', en: 'No such record in the organisation.' },
  route_not_found: { pl: 'Nie ma takiego endpointu.', en: 'No such endpoint.' },
  conflict: { pl: 'Operacja jest sprzeczna z bieżącym stanem rekordu.', en: 'The operation conflicts with the current state of the record.' },
  contact_exists: { pl: 'Osoba z tym telefonem lub e-mailem już istnieje.', en: 'A person with this phone or e-mail already exists.' },
  contact_merged: { pl: 'Karta została scalona z inną kartą.', en: 'The card was merged into another card.' },
  stage_conflict: { pl: 'Nie można teraz zmienić etapu w ten sposób.', en: 'The stage cannot be changed this way right now.' },
  event_conflict: { pl: 'Zdarzenie jest sprzeczne z już przyjętym zdarzeniem.', en: 'The event conflicts with one already accepted.' },
  source_paused: { pl: 'Źródło jest wstrzymane.', en: 'The source is paused.' },
  limit_reached: { pl: 'Osiągnięto limit.', en: 'A limit has been reached.' },
  idempotency_in_progress: { pl: 'Zapytanie z tym kluczem idempotencji wciąż trwa; ponów za chwilę.', en: 'A request with this Idempotency-Key is still running; retry shortly.' },
  idempotency_key_reused: { pl: 'Ten sam klucz idempotencji użyty z inną treścią.', en: 'The same Idempotency-Key was used with a different body.' },
  payload_too_large: { pl: 'Treść zapytania przekracza limit rozmiaru (details.limit_bytes).', en: 'The request body is over the size limit (details.limit_bytes).' },
  internal_error: { pl: 'Błąd po stronie serwera; spróbuj ponownie później.', en: 'Server-side error; retry later.' },
};

/** internal_error when a request's time-out answers for it (src/http/timeout.ts): its outcome is unknown. */
export const TIMED_OUT: Record<Language, string> = {
  pl: 'Baza danych nie odpowiedziała na czas; wynik zapytania jest nieznany, spróbuj ponownie później.',
  en: 'The database did not answer in time; the outcome of the request is unknown, retry later.',
};

/**
 * conflict to a repeat of a request whose process died after making its change and before answering
 * (src/http/idempotency.ts): the change is not made twice, and its answer cannot be given.
 */
export const ANSWER_LOST: Record<Language, string> = {
  pl: 'Zapytanie wysłane wcześniej z tym kluczem idempotencji zostało wykonane, ale jego proces zatrzymał się przed odpowiedzią i odpowiedź przepadła; odczytaj rekord, aby zobaczyć wynik.',
  en: 'The request first sent with this Idempotency-Key was carried out, but its process stopped before answering and its answer is lost; read the record to see the result.',
};

/**
 * unauthorized at the platform's leadgen webhook (src/routes/platformWebhook.ts), which takes no API key: the
 * catalogue's message would send whoever sets up the app looking for one.
 */
export const LEADGEN_REFUSED = {
  signature: {
    pl: 'Brak nagłówka X-Hub-Signature-256 lub podpis nie zgadza się z treścią (sekret aplikacji: PLATFORM_APP_SECRET).',
    en: 'The X-Hub-Signature-256 header is missing or does not match the body (app secret: PLATFORM_APP_SECRET).',
  },
  verifyToken: {
    pl: 'Zły hub.mode lub hub.verify_token (oczekiwany: subscribe i PLATFORM_VERIFY_TOKEN).',
    en: 'Wrong hub.mode or hub.verify_token (expected: subscribe and PLATFORM_VERIFY_TOKEN).',
  },
} as const satisfies Record<string, Record<Language, string>>;

/**
 * Accept-Language with quality values: English when an en tag outranks pl, Polish otherwise. Whitespace may stand
 * on either side of each ';' (RFC 9110 writes the weight `OWS ";" OWS "q=" qvalue`): `en ;q=0.9` is English too.
 */
export function pickLanguage(header: string | undefined): Language {
  if (!header) return 'pl';
  let best: { lang: Language; q: number } = { lang: 'pl', q: 0 };
  for (const part of header.split(',')) {
    const [tag, ...params] = part.toLowerCase().split(';').map((piece) => piece.trim());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const base = tag.split('-')[0];
    if ((base === 'en' || base === 'pl') && q > best.q) best = { lang: base, q };
  }
  return best.lang;
}
