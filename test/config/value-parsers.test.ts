import { describe, expect, it } from 'vitest';
import {
  parseBoolean,
  parseBytes,
  parseDuration,
  parseEndpoints,
  parseInteger,
  parseListen,
  parseOneOf,
} from '../../src/config/value-parsers.ts';
import { ValueProblem } from '../../src/config/config-error.ts';

const GIB = 2 ** 30;
const TIB = 2 ** 40;

/** The message of the ValueProblem that run throws; fails the test when it throws nothing or something else. */
function problem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValueProblem);
    return (error as ValueProblem).message;
  }
  throw new Error('expected a ValueProblem, but nothing was thrown');
}

describe('parseDuration', () => {
  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['0s', 0],
    [' 2s ', 2000],
    ['1m500ms', 60_500],
  ])('reads %j as %i ms', (raw, ms) => {
    expect(parseDuration(raw, 0, 3_600_000)).toBe(ms);
  });

  it.each(['5', '', '   ', 'abc', '5x', 's', '-5s', '5 s', '5s junk', '1.s'])('rejects %j with the exact text', (raw) => {
    expect(problem(() => parseDuration(raw, 0, 3_600_000))).toBe(
      `'${raw}' is not a duration (write it with a unit, e.g. 5s or 500ms)`,
    );
  });

  it('names the range below the minimum, in seconds or milliseconds', () => {
    expect(problem(() => parseDuration('5ms', 10, 60_000))).toBe('5ms is out of range (10ms to 60s)');
  });

  it('names the range above the maximum', () => {
    expect(problem(() => parseDuration('61s', 10, 60_000))).toBe('61s is out of range (10ms to 60s)');
  });

  it('writes a zero minimum as 0s', () => {
    expect(problem(() => parseDuration('2h', 0, 3_600_000))).toBe('2h is out of range (0s to 1h)');
  });

  it('accepts both bounds', () => {
    expect(parseDuration('10ms', 10, 60_000)).toBe(10);
    expect(parseDuration('60s', 10, 60_000)).toBe(60_000);
  });

});

describe('parseBytes', () => {
  it.each([
    ['2GiB', 2 * GIB],
    ['8Gi', 8 * GIB],
    ['500MiB', 500 * 2 ** 20],
    ['2147483648', 2 * GIB],
    ['1', 1],
    ['64KiB', 65_536],
    ['64Ki', 65_536],
    ['3MiB', 3 * 2 ** 20],
    ['10kib', 10_240],
    ['100b', 100],
    ['1.5GiB', 1.5 * GIB],
    ['2 GiB', 2 * GIB],
    ['2gib', 2 * GIB],
    [' 8Gi ', 8 * GIB],
  ])('reads %j as %i bytes', (raw, bytes) => {
    expect(parseBytes(raw, 1, 1024 * GIB)).toBe(bytes);
  });

  it.each(['', 'abc', '2GiBs', '2XB', '-1', 'GiB', '1,5GiB', '0x10'])('rejects %j with the exact text', (raw) => {
    expect(problem(() => parseBytes(raw, 1, 1024 * GIB))).toBe(`'${raw}' is not a byte size (e.g. 2147483648, 2GiB or 8Gi)`);
  });

  it.each([
    ['8GB', '8GiB'],
    ['8G', '8Gi'],
    ['500MB', '500MiB'],
    ['10kb', '10KiB'],
    ['1.5TB', '1.5TiB'],
  ])('refuses the decimal unit of %j, which etcd writes for binary sizes, naming the binary spelling (issue 26)', (raw, binary) => {
    expect(problem(() => parseBytes(raw, 1, 1024 * GIB))).toBe(
      `'${raw}' is ambiguous: etcd writes 8GB for 8 GiB, so decimal units are not read; write ${raw.replace(/[a-z]+$/i, '')}${binary.replace(/^[\d.]+/, '')} for ${raw.replace(/[a-z]+$/i, '')} × 1024^n bytes, or the plain number of bytes`,
    );
  });

  it('names the range in bytes', () => {
    expect(problem(() => parseBytes('0', 1, TIB))).toBe('0 is out of range (1 to 1099511627776 bytes)');
    expect(problem(() => parseBytes('1025Gi', 1, TIB))).toBe('1025Gi is out of range (1 to 1099511627776 bytes)');
  });

  it('accepts the maximum itself', () => {
    expect(parseBytes('1024GiB', 1, TIB)).toBe(TIB);
  });
});

describe('parseInteger', () => {
  it('reads whole numbers, trimming blanks', () => {
    expect(parseInteger('1000', 1, 1_000_000_000)).toBe(1000);
    expect(parseInteger(' 42 ', 1, 100)).toBe(42);
    expect(parseInteger('007', 1, 100)).toBe(7);
  });

  it.each(['', 'abc', '1.5', '-1', '1e3', '10 0', '+5'])('rejects %j as not a whole number', (raw) => {
    expect(problem(() => parseInteger(raw, 0, 100))).toBe(`'${raw}' is not a whole number`);
  });

  it('names the range', () => {
    expect(problem(() => parseInteger('0', 1, 1_000_000_000))).toBe('0 is out of range (1 to 1000000000)');
    expect(problem(() => parseInteger('1000000001', 1, 1_000_000_000))).toBe('1000000001 is out of range (1 to 1000000000)');
  });
});

describe('parseBoolean', () => {
  it.each(['true', 'TRUE', '1', 'yes', 'on', ' On '])('reads %j as true', (raw) => {
    expect(parseBoolean(raw)).toBe(true);
  });

  it.each(['false', 'False', '0', 'no', 'off'])('reads %j as false', (raw) => {
    expect(parseBoolean(raw)).toBe(false);
  });

  it.each(['', 'y', 'enabled', '2'])('rejects %j', (raw) => {
    expect(problem(() => parseBoolean(raw))).toBe(`'${raw}' is not a boolean (use true or false)`);
  });
});

describe('parseOneOf', () => {
  const allowed = ['quorum', 'strict'] as const;

  it('returns the word, trimmed', () => {
    expect(parseOneOf('strict', allowed)).toBe('strict');
    expect(parseOneOf(' quorum ', allowed)).toBe('quorum');
  });

  it('lists the allowed words when the word is not one of them', () => {
    expect(problem(() => parseOneOf('lenient', allowed))).toBe("'lenient' is not one of quorum, strict");
  });

  it('is case-sensitive', () => {
    expect(problem(() => parseOneOf('STRICT', allowed))).toBe("'STRICT' is not one of quorum, strict");
  });
});

describe('parseListen', () => {
  it.each([
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    ['127.0.0.1:9000', { host: '127.0.0.1', port: 9000 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    [':8080', { host: '0.0.0.0', port: 8080 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['[::]:8080', { host: '::', port: 8080 }],
    [' :9090 ', { host: '0.0.0.0', port: 9090 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
  ])('reads %j', (raw, address) => {
    expect(parseListen(raw)).toEqual(address);
  });

  it.each(['8080', '', 'localhost', '::1:8080', 'host:port', 'host:-1', '[zz]:80', '[]:80', 'a:b:80'])(
    'rejects %j with the exact text',
    (raw) => {
      expect(problem(() => parseListen(raw))).toBe(`'${raw}' is not host:port (e.g. 0.0.0.0:8080 or :8080)`);
    },
  );

  it('rejects a port above 65535', () => {
    expect(problem(() => parseListen('0.0.0.0:65536'))).toBe('port 65536 is out of range (0 to 65535)');
    expect(parseListen(':65535')).toEqual({ host: '0.0.0.0', port: 65535 });
  });
});

describe('parseEndpoints', () => {
  it('reads a comma-separated list, trimming blanks and skipping empty items', () => {
    expect(parseEndpoints(' https://10.0.0.1:2379 ,https://10.0.0.2:2379,, ')).toEqual([
      'https://10.0.0.1:2379',
      'https://10.0.0.2:2379',
    ]);
  });

  it('normalises each URL to scheme://host:port', () => {
    expect(parseEndpoints('HTTP://Etcd-0.Example.COM:2379/')).toEqual(['http://etcd-0.example.com:2379']);
    expect(parseEndpoints('http://[::1]:2379')).toEqual(['http://[::1]:2379']);
  });

  it('drops duplicates after normalisation, keeping the first position', () => {
    expect(parseEndpoints('http://b:2379,http://a:2379,HTTP://A:2379/,http://b:2379')).toEqual([
      'http://b:2379',
      'http://a:2379',
    ]);
  });

  it.each(['', ' ', ',', ' , ,'])('rejects %j as no endpoint', (raw) => {
    expect(problem(() => parseEndpoints(raw))).toBe('no endpoint given (e.g. https://10.0.0.1:2379)');
  });

  it('asks for a scheme', () => {
    expect(problem(() => parseEndpoints('10.0.0.1:2379'))).toBe("'10.0.0.1:2379' needs a scheme: http:// or https://");
  });

  it('names the first bad item of a list', () => {
    expect(problem(() => parseEndpoints('http://a:2379, b:2379'))).toBe("'b:2379' needs a scheme: http:// or https://");
  });

  it('suggests the default client port when the port is missing', () => {
    expect(problem(() => parseEndpoints('https://etcd-0'))).toBe(
      "'https://etcd-0' has no port (etcd serves clients on 2379 by default: https://etcd-0:2379)",
    );
  });

  it.each([
    ['unix://etcd.sock:0', 'unix'],
    ['grpc://10.0.0.1:2379', 'grpc'],
    ['ftp://10.0.0.1:21', 'ftp'],
  ])('rejects the scheme of %j', (raw, scheme) => {
    expect(problem(() => parseEndpoints(raw))).toBe(`'${raw}' has scheme ${scheme}; use http:// or https://`);
  });

  it.each(['http://10.0.0.1:2379/v3', 'http://10.0.0.1:2379?x=1', 'http://10.0.0.1:2379#frag'])(
    'rejects the path, query or fragment of %j',
    (raw) => {
      expect(problem(() => parseEndpoints(raw))).toBe(`'${raw}' must be scheme://host:port, without path or query`);
    },
  );

  it('rejects what the URL parser rejects', () => {
    expect(problem(() => parseEndpoints('http://bad host:2379'))).toBe("'http://bad host:2379' is not a URL");
  });

  it.each([
    'http://admin:s3cr3t-pass@10.0.0.1:2379',
    'http://admin:s3cr3t-pass@10.0.0.1:2379/v3?x=1',
    'http://:s3cr3t-pass@10.0.0.1:2379',
    'http://s3cr3t-pass@10.0.0.1:2379',
  ])('rejects credentials in %j without echoing them', (raw) => {
    const message = problem(() => parseEndpoints(raw));
    expect(message).toBe("'http://10.0.0.1:2379' must not carry credentials in the URL; use client certificates");
    expect(message).not.toContain('s3cr3t');
  });
});
