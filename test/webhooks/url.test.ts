import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkWebhookUrl } from '../../src/webhooks/url.ts';

const test = suite('Webhook URL: checked when a subscription is created or changed');

test('accepts public HTTPS URLs', () => {
  for (const url of ['https://hooks.example.com/in', 'https://hooks.example.com:8443/in?token=a#x', 'https://8.8.8.8/in', 'https://[2606:4700::1111]/in']) {
    assert.equal(checkWebhookUrl(url, { allowPrivate: false }), { ok: true }, url);
  }
});

test('refuses with a short reason', () => {
  const cases: Array<[string, string]> = [
    ['http://hooks.example.com/in', 'url must use https'],
    ['ftp://hooks.example.com/in', 'url must use https'],
    ['not a url', 'url must not contain spaces or control characters'],
    ['hooks.example.com/in', 'url is not a valid absolute URL'],
    [' https://hooks.example.com/in', 'url must not contain spaces or control characters'],
    ['https://user:pass@hooks.example.com/in', 'url must not contain credentials'],
    ['https://user@hooks.example.com/in', 'url must not contain credentials'],
    [`https://hooks.example.com/${'a'.repeat(2000)}`, 'url must be at most 2000 characters'],
    ['https://127.0.0.1/in', 'url must not point to a loopback address'],
    ['https://2130706433/in', 'url must not point to a loopback address'],
    ['https://0x7f.1/in', 'url must not point to a loopback address'],
    ['https://10.1.2.3/in', 'url must not point to a private address'],
    ['https://169.254.169.254/latest/meta-data/', 'url must not point to a cloud metadata address'],
    ['https://100.64.0.1/in', 'url must not point to a shared (CGNAT) address'],
    ['https://[::1]/in', 'url must not point to a loopback address'],
    ['https://[fe80::1]/in', 'url must not point to a link-local address'],
    ['https://[fc00::1]/in', 'url must not point to a unique-local address'],
    ['https://[::ffff:127.0.0.1]/in', 'url must not point to a loopback address'],
    ['https://0.0.0.0/in', 'url must not point to an unspecified address'],
    ['https://[::ffff:a00:1]/in', 'url must not point to a private address'],
    ['https://localhost/in', 'url must not point to a local host name'],
    ['https://LocalHost./in', 'url must not point to a local host name'],
    ['https://api.localhost/in', 'url must not point to a local host name'],
    ['https://printer.local/in', 'url must not point to a local host name'],
    ['https://db.corp.internal/in', 'url must not point to a local host name'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'url must not point to a local host name'],
    ['https://intranet/in', 'url host must be a fully qualified domain name'],
    ['https://example.com:0/in', 'url must not use port 0'],
    ['https:/hooks.example.com/in', 'url must be written as https://host/path, with two slashes and no backslash'],
    ['https:hooks.example.com/in', 'url must be written as https://host/path, with two slashes and no backslash'],
    ['https://hooks.example.com\\@evil.example/in', 'url must be written as https://host/path, with two slashes and no backslash'],
    ['https://hooks.example.com/a\\b', 'url must be written as https://host/path, with two slashes and no backslash'],
    ['https://hooks..example.com/in', 'url host is not a valid domain name'],
    [`https://${'a'.repeat(64)}.example.com/in`, 'url host is not a valid domain name'],
    [`https://${'a.'.repeat(127)}com/in`, 'url host is not a valid domain name'],
  ];
  for (const [url, reason] of cases) assert.equal(checkWebhookUrl(url, { allowPrivate: false }), { ok: false, reason }, url);
});

test('a URL of exactly 2000 characters is accepted', () => {
  const base = 'https://hooks.example.com/';
  assert.equal(checkWebhookUrl(base + 'a'.repeat(2000 - base.length), { allowPrivate: false }), { ok: true });
});

test('the 2000 are characters, not UTF-16 units: an emoji in the path counts once', () => {
  const base = 'https://hooks.example.com/😀';
  const url = base + 'a'.repeat(2000 - [...base].length);
  assert.is(url.length, 2001);
  assert.equal(checkWebhookUrl(url, { allowPrivate: false }), { ok: true });
  assert.equal(checkWebhookUrl(`${url}a`, { allowPrivate: false }), { ok: false, reason: 'url must be at most 2000 characters' });
});

test('with WEBHOOK_ALLOW_PRIVATE, plain HTTP and loopback receivers are accepted, credentials still are not', () => {
  for (const url of ['http://127.0.0.1:3000/hook', 'http://localhost:3000/hook', 'https://[::1]:8443/hook', 'http://hooks.localhost:3000/hook', 'http://0.0.0.0:3000/hook', 'http://[::]:3000/hook']) {
    assert.equal(checkWebhookUrl(url, { allowPrivate: true }), { ok: true }, url);
  }
  assert.equal(checkWebhookUrl('http://a:b@127.0.0.1/', { allowPrivate: true }), { ok: false, reason: 'url must not contain credentials' });
  assert.equal(checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true }), { ok: false, reason: 'url must use http or https' });
});

test('WEBHOOK_ALLOW_PRIVATE opens loopback only: plain HTTP elsewhere and the other private classes are still refused', () => {
  const cases: Array<[string, string]> = [
    ['http://hooks.example.com/in', 'url must use https'],
    ['http://10.1.2.3/in', 'url must use https'],
    ['https://10.1.2.3/in', 'url must not point to a private address'],
    ['https://169.254.169.254/latest/meta-data/', 'url must not point to a cloud metadata address'],
    ['https://[fe80::1]/in', 'url must not point to a link-local address'],
    ['https://printer.local/in', 'url must not point to a local host name'],
  ];
  for (const [url, reason] of cases) assert.equal(checkWebhookUrl(url, { allowPrivate: true }), { ok: false, reason }, url);
});

test.run();
