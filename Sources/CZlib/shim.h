#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros (they pass the zlib version and stream size), which
// Swift cannot call; these wrappers can be.
static inline int czlib_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

static inline int czlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
