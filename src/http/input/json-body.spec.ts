import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { AppError } from '../errors/error-codes';
import { BodyRequest, jsonBody, parseJsonObject } from './json-body';

const parse = (text: string, type = 'application/json') =>
  parseJsonObject(Buffer.from(text, 'utf8'), type);
const codeOf = (result: unknown) => (result instanceof AppError ? result.code : 'ok');

describe('parseJsonObject: one JSON object, or the error held for it', () => {
  it.each([
    ['an object', '{"a":1}', 'application/json', 'ok'],
    ['an object, utf-8 named', '{"a":1}', 'application/json; charset=utf-8', 'ok'],
    ['an object, UTF8 quoted', '{"a":1}', 'application/json; charset="UTF8"', 'ok'],
    ['another charset', '{"a":1}', 'application/json; charset=latin1', 'unsupported_media_type'],
    ['broken JSON', '{"a":', 'application/json', 'invalid_json'],
    ['empty text', '', 'application/json', 'invalid_json'],
    ['null', 'null', 'application/json', 'validation_failed'],
    ['a number', '42', 'application/json', 'validation_failed'],
    ['a string', '"z"', 'application/json', 'validation_failed'],
    ['true', 'true', 'application/json', 'validation_failed'],
    ['an array', '[]', 'application/json', 'validation_failed'],
    ['33 levels', '{"a":'.repeat(33) + '1' + '}'.repeat(33), 'application/json', 'invalid_json'],
    ['32 levels', '{"a":'.repeat(32) + '1' + '}'.repeat(32), 'application/json', 'ok'],
  ])('%s', (_name, text, type, code) => {
    expect(codeOf(parse(text, type))).toBe(code);
  });

  it('returns the parsed object', () => {
    expect(parse('{"text":"héllo","n":[1,2]}')).toEqual({ text: 'héllo', n: [1, 2] });
  });

  it('names the depth limit in the message', () => {
    const result = parse('['.repeat(40) + ']'.repeat(40));
    expect(result).toBeInstanceOf(AppError);
    expect((result as AppError).message).toBe('Request body is nested deeper than 32 levels');
  });
});

describe('jsonBody: the body hash for an Idempotency-Key', () => {
  const app = express()
    .use(jsonBody())
    .post('/', (req, res) => {
      const { body, rawBodySha256 } = req as BodyRequest;
      res.json({ body, rawBodySha256: rawBodySha256 ?? null });
    });
  const text = '{ "text": "héllo" }';

  it('hashes the bytes as received when the request carries a key', async () => {
    const answer = await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', 'k1')
      .send(text);
    expect(answer.body).toEqual({
      body: { text: 'héllo' },
      rawBodySha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    });
  });

  it('does not hash the body of a request without a key', async () => {
    const answer = await request(app).post('/').set('Content-Type', 'application/json').send(text);
    expect(answer.body).toEqual({ body: { text: 'héllo' }, rawBodySha256: null });
  });
});
