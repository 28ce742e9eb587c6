import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fetchAdCreative } from '../../src/platform/insights.ts';
import { sandboxContext, type SandboxContext } from './helpers.ts';

const test = suite<SandboxContext>('Platform creatives: the creative behind an ad');
test.before((ctx) => sandboxContext(ctx));
test.after(({ sandbox }) => sandbox.stop());
test.before.each(({ sandbox }) => {
  sandbox.reset();
  sandbox.seedCreative({ id: 'c-video', videoId: 'v-1', thumbnailUrl: 'https://img.example/v1.jpg', title: 'Watch', body: 'Spring offer' });
  sandbox.seedCreative({ id: 'c-image', imageHash: 'hash-1', title: 'Look' });
  sandbox.seedCreative({ id: 'c-carousel', carouselImageHashes: ['h1', 'h2', 'h3'] });
  sandbox.seedCreative({ id: 'c-text', objectType: 'STATUS', body: 'Just text' });
  sandbox.seedAd({ id: 'ad-v', creativeId: 'c-video' });
  sandbox.seedAd({ id: 'ad-i', creativeId: 'c-image' });
  sandbox.seedAd({ id: 'ad-c', creativeId: 'c-carousel' });
  sandbox.seedAd({ id: 'ad-t', creativeId: 'c-text' });
});

test('a video ad gives its video id and texts', async ({ cfg }) => {
  const result = await fetchAdCreative(cfg, 'ad-v', 'tok');
  assert.equal(result, {
    kind: 'ok',
    value: { ad_id: 'ad-v', creative_id: 'c-video', video_id: 'v-1', image_hash: null, format: 'video', thumbnail_url: 'https://img.example/v1.jpg', title: 'Watch', body: 'Spring offer' },
  });
});

test('image, carousel and text ads are told apart', async ({ cfg }) => {
  const image = await fetchAdCreative(cfg, 'ad-i', 'tok');
  assert.is(image.kind === 'ok' && image.value.format, 'image');
  assert.is(image.kind === 'ok' && image.value.image_hash, 'hash-1');
  const carousel = await fetchAdCreative(cfg, 'ad-c', 'tok');
  assert.is(carousel.kind === 'ok' && carousel.value.format, 'carousel');
  const text = await fetchAdCreative(cfg, 'ad-t', 'tok');
  assert.is(text.kind === 'ok' && text.value.format, 'other');
});

test('the creative is also readable by its own id, with only the asked-for fields', async ({ sandbox }) => {
  const res = await fetch(`${sandbox.url}/v21.0/c-video?access_token=tok&fields=id,video_id,title`);
  assert.equal(await res.json(), { id: 'c-video', video_id: 'v-1', title: 'Watch' });
});

test('an unknown ad is a permanent failure', async ({ cfg }) => {
  const result = await fetchAdCreative(cfg, 'ad-missing', 'tok');
  assert.is(result.kind, 'permanent');
  assert.is(result.kind !== 'ok' && result.subcode, 33);
});

test.run();
