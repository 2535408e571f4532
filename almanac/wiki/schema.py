"""The section record of a Wikipedia article, apart from the dump reader so that the event schema can use it
without importing the reader (mwxml, mwparserfromhell)."""

import pyarrow as pa

SECTION_TYPE = pa.struct([("title", pa.string()), ("level", pa.int8()), ("text", pa.string())])
