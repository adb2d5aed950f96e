#ifndef FRAMEFLOW_CZLIB_SHIM_H
#define FRAMEFLOW_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro Swift cannot import: a raw deflate stream (no zlib header), as in
   ZIP entries of method 8. */
static inline int ff_inflate_init_raw(z_stream *stream) { return inflateInit2(stream, -MAX_WBITS); }
#endif
