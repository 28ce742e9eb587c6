import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeExportFile, leadFromGraph, LeadExportError, parseLeadExport } from '../../src/platform/leads.ts';

const test = suite('Platform lead export: the JSON and Ads Manager CSV files as leads');

const CSV_HEADER = 'id,created_time,ad_id,ad_name,adset_id,adset_name,campaign_id,campaign_name,form_id,form_name,is_organic,platform,full_name,email,phone_number,What is your budget?';

test('the Ads Manager CSV gives leads with ad, placement, contact fields and answers', () => {
  const csv = [
    CSV_HEADER,
    'l:111,2025-03-01T11:20:30+01:00,ag:601,Spring video,as:501,Warsaw,c:401,Spring,f:301,Spring form,false,ig,Anna Nowak,anna@example.com,+48601234567,"10,000 PLN"',
    'l:112,2025-03-02T08:00:00+01:00,,,,,,,f:301,Spring form,true,fb,Jan Kowalski,jan@example.com,,',
  ].join('\n');
  const [paid, organic] = parseLeadExport(csv, 'csv');
  assert.equal(paid, {
    platformLeadId: '111',
    createdTime: '2025-03-01T10:20:30.000Z',
    formId: '301',
    formName: 'Spring form',
    pageId: null,
    platform: 'instagram',
    ad: { platform: 'instagram', campaign_id: '401', campaign_name: 'Spring', adset_id: '501', adset_name: 'Warsaw', ad_id: '601', ad_name: 'Spring video' },
    answers: [
      { key: 'full_name', label: 'Full name', values: ['Anna Nowak'] },
      { key: 'email', label: 'Email', values: ['anna@example.com'] },
      { key: 'phone_number', label: 'Phone number', values: ['+48601234567'] },
      { key: 'what_is_your_budget?', label: 'What is your budget?', values: ['10,000 PLN'] },
    ],
    email: 'anna@example.com',
    phone: '+48601234567',
    fullName: 'Anna Nowak',
  });
  assert.is(organic.ad, null);
  assert.is(organic.platform, 'facebook');
  assert.is(organic.phone, null);
  assert.equal(organic.answers.map((a) => a.key), ['full_name', 'email']);
});

test('a UTF-16 tab-separated export (as Ads Manager downloads it) reads the same', () => {
  const tsv = `${CSV_HEADER.split(',').join('\t')}\nl:5\t2025-03-01T10:00:00+0000\t\t\t\t\t\t\tf:3\tForm\ttrue\tfb\tEwa\tewa@example.com\t600100200\t`;
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(tsv, 'utf16le')]);
  const [lead] = parseLeadExport(decodeExportFile(bytes), 'csv');
  assert.is(lead.platformLeadId, '5');
  assert.is(lead.createdTime, '2025-03-01T10:00:00.000Z');
  assert.is(lead.phone, '600100200');
  assert.is(lead.formName, 'Form');
});

test('the JSON export gives the same leads from Graph lead objects with form_name', () => {
  const json = JSON.stringify([
    {
      id: '777',
      created_time: '2025-03-01T10:20:30+0000',
      ad_id: '601',
      ad_name: 'Spring video',
      adset_id: '501',
      adset_name: 'Warsaw',
      campaign_id: '401',
      campaign_name: 'Spring',
      form_id: '301',
      form_name: 'Spring form',
      is_organic: false,
      platform: 'fb',
      field_data: [
        { name: 'first_name', values: ['Anna'] },
        { name: 'last_name', values: ['Nowak'] },
        { name: 'work_email', values: ['anna@firma.pl'] },
      ],
    },
  ]);
  const [lead] = parseLeadExport(json, 'json');
  assert.is(lead.platformLeadId, '777');
  assert.is(lead.formName, 'Spring form');
  assert.is(lead.fullName, 'Anna Nowak');
  assert.is(lead.email, 'anna@firma.pl');
  assert.is(lead.ad?.ad_id, '601');
  assert.is(lead.ad?.platform, 'facebook');
});

test('a JSON export writing its ids as numbers gives the ids as text (the API shows them as strings), unless too long to read exactly', () => {
  const json = '[{"id":"778","created_time":"2025-03-01T10:20:30+0000","ad_id":601,"ad_name":"Spring video","adset_id":501,"campaign_id":401,"form_id":301,"form_name":"Spring form","page_id":201,"platform":"ig","field_data":[]}]';
  const [lead] = parseLeadExport(json, 'json');
  assert.equal(lead.ad, { platform: 'instagram', campaign_id: '401', campaign_name: '', adset_id: '501', adset_name: '', ad_id: '601', ad_name: 'Spring video' });
  assert.equal([lead.formId, lead.pageId], ['301', '201']);
  // A number past 2^53 has lost digits already (23851234567890123 reads as ...120): refused with the row named.
  assert.throws(
    () => parseLeadExport('[{"id":"779","created_time":"2025-03-01T10:20:30+0000","ad_id":23851234567890123,"form_id":"301","field_data":[]}]', 'json'),
    (e: unknown) => e instanceof LeadExportError && e.row === 1 && /ad_id .* too long/.test(e.message),
  );
  assert.is(parseLeadExport('[{"id":780,"created_time":"2025-03-01T10:20:30+0000","form_id":"301","field_data":[]}]', 'json')[0].platformLeadId, '780');
});

test('a JSON export writing a platform or a form name of another type reads them as text, never an unexpected error', () => {
  const [lead] = parseLeadExport('[{"id":"781","created_time":"2025-03-01T10:20:30+0000","ad_id":"601","form_id":"301","form_name":2024,"platform":7,"field_data":[]}]', 'json');
  assert.is(lead.formName, '2024');
  assert.is(lead.ad?.platform, '7');
  const [other] = parseLeadExport('[{"id":"782","created_time":"2025-03-01T10:20:30+0000","form_id":"301","form_name":{"x":1},"platform":["ig"],"field_data":[]}]', 'json');
  assert.is(other.formName, null);
  assert.is(other.platform, 'facebook');
});

test('leadFromGraph takes the form name and question labels from the caller', () => {
  const lead = leadFromGraph({ id: '1', created_time: '2025-03-01T10:00:00+0000', form_id: '3', field_data: [{ name: 'city', values: ['Kraków'] }] }, 'Form A', { city: 'Which city?' });
  assert.is(lead.formName, 'Form A');
  assert.equal(lead.answers, [{ key: 'city', label: 'Which city?', values: ['Kraków'] }]);
  assert.is(lead.ad, null);
});

test('a broken file is refused with the row named', () => {
  assert.throws(() => parseLeadExport('{"not":"a list"}', 'json'), (e: unknown) => e instanceof LeadExportError);
  assert.throws(() => parseLeadExport('[{"id":"1"}]', 'json'), (e: unknown) => e instanceof LeadExportError && e.row === 1);
  assert.throws(
    () => parseLeadExport(`${CSV_HEADER}\nl:1,yesterday,,,,,,,f:1,F,true,fb,A,a@b.c,,`, 'csv'),
    (e: unknown) => e instanceof LeadExportError && e.row === 2 && /created_time/.test(e.message),
  );
  // A time before the year 0001 (JavaScript's year 0000) is refused too: no projector could store that lead.
  assert.throws(
    () => parseLeadExport('[{"id":"7","created_time":"0000-06-01T10:00:00+0000","form_id":"3","form_name":"F","field_data":[]}]', 'json'),
    (e: unknown) => e instanceof LeadExportError && e.row === 1 && /created_time/.test(e.message),
  );
});

test.run();
