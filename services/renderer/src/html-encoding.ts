/**
 * A document's encoding as the WHATWG HTML standard sniffs it: a byte order
 * mark, the transport's charset label, then a `<meta charset>` or XML
 * declaration in the first 1024 bytes (encoding-sniffer implements these
 * steps); when none of them says, the standard lets a user agent autodetect
 * from the content before falling back to windows-1252. Ours: bytes that are
 * valid UTF-8 are UTF-8, since legacy single-byte text with non-ASCII letters
 * practically never forms valid UTF-8 sequences (and ASCII reads the same
 * either way).
 */
import { decodeBuffer } from "encoding-sniffer";
import { ResultType, Sniffer } from "encoding-sniffer/sniffer";

export interface SniffedEncoding {
  /** The encoding's name (as encoding-sniffer spells it, e.g. "UTF-8", "windows-1252"). */
  encoding: string;
  /** True when the content alone chose it: nothing labelled the document. */
  detected: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The charset label of a Content-Type header, undefined when it has none. */
export function charsetLabel(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
}

export function sniffEncoding(bytes: Uint8Array, transportLabel: string | undefined): SniffedEncoding {
  const sniffer = new Sniffer({ transportLayerEncodingLabel: transportLabel });
  sniffer.write(bytes);
  if (sniffer.resultType === ResultType.DEFAULT && isUtf8(bytes)) return { encoding: "UTF-8", detected: true };
  return { encoding: sniffer.encoding, detected: false };
}

/** The document's text, decoded as sniffEncoding says. */
export function decodeDocument(bytes: Buffer, transportLabel: string | undefined): string {
  const { encoding, detected } = sniffEncoding(bytes, transportLabel);
  // Nothing in the bytes or the header contradicts a label now: passing the detected encoding as one is exact.
  return decodeBuffer(bytes, { transportLayerEncodingLabel: detected ? encoding : transportLabel });
}
