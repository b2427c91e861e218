/** Image sizes read from the base64 header, as the API's limits need them (oversized-image). */
import { describe, expect, it } from 'vitest';
import { imageDimensions } from '../../src/core/records.js';
import { pngBase64 } from '../helpers/fix-twice.js';

describe('imageDimensions', () => {
  it('reads PNG, GIF and WebP headers', () => {
    expect(imageDimensions(pngBase64(9000, 120))).toEqual({ width: 9000, height: 120, format: 'png' });
    const gif = Buffer.from('GIF89a\x10\x27\x20\x00\x00\x00', 'latin1');
    expect(imageDimensions(gif.toString('base64'))).toEqual({ width: 10000, height: 32, format: 'gif' });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(8999, 24, 3);
    webp.writeUIntLE(99, 27, 3);
    expect(imageDimensions(webp.toString('base64'))).toEqual({ width: 9000, height: 100, format: 'webp' });
  });

  it('finds a JPEG size marker behind a long EXIF block', () => {
    const app = (): Buffer => {
      const b = Buffer.alloc(2 + 60000);
      b[0] = 0xff;
      b[1] = 0xe1;
      b.writeUInt16BE(60000, 2);
      return b;
    };
    const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x23, 0x29, 0x01, 0x2c, 0x03]);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), app(), app(), sof, Buffer.alloc(20)]);
    expect(imageDimensions(jpeg.toString('base64'))).toEqual({ width: 300, height: 9001, format: 'jpeg' });
  });

  it('gives no size for data that is no image it knows', () => {
    expect(imageDimensions(Buffer.from('not an image at all').toString('base64'))).toEqual({ width: 0, height: 0, format: undefined });
    expect(imageDimensions('')).toEqual({ width: 0, height: 0, format: undefined });
  });
});
