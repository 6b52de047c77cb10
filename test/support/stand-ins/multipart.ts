import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';

/** A file of a multipart request, as a stand-in received it. */
export interface RecordedFile {
  field: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

/**
 * A multipart/form-data body: its text fields and its files, whole. Busboy closes once the body is
 * parsed, which can be before a file's stream has ended: this waits for every file, so that a test
 * reads whole files once Herald has the stand-in's answer.
 */
export function readMultipart(
  req: IncomingMessage,
): Promise<{ fields: Record<string, string>; files: RecordedFile[] }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: RecordedFile[] = [];
    const ended: Promise<void>[] = [];
    const parser = busboy({ headers: req.headers, limits: { fileSize: 64 * 1024 * 1024 } });
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      ended.push(
        new Promise((done) =>
          stream.on('end', () => {
            files.push({
              field,
              filename: info.filename ?? '',
              mimeType: info.mimeType,
              bytes: Buffer.concat(chunks),
            });
            done();
          }),
        ),
      );
    });
    parser.on('close', () => void Promise.all(ended).then(() => resolve({ fields, files })));
    parser.on('error', reject);
    req.pipe(parser);
  });
}
